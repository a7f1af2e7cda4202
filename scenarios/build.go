package scenarios

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"nocsim/config"
)

// Build is the scenario a command runs, in the order a user expects to
// override things: the defaults, the [network] preset over them (when
// preset is not empty), the file r (named name in messages; nil: none)
// over that, and the values over everything. values are key texts by key
// name, as Set takes them, applied in the keys' order so that the first
// bad one is always the one reported; named(key) is what a value is
// called in messages and in the returned Source (a flag: "--mesh"). The
// error names the file entry or the value that is wrong.
func Build(r io.Reader, name, preset string, values map[string]string, named func(key string) string) (Scenario, Source, error) {
	sc := Defaults()
	var src Source = func(section, key string) string { return fmt.Sprintf("default [%s] %s", section, key) }
	if r != nil || preset != "" {
		if r == nil {
			r = strings.NewReader("")
		}
		var err error
		if sc, src, err = DecodePreset(r, name, preset); err != nil {
			return sc, nil, err
		}
	}
	for _, sk := range Sections() {
		for _, k := range sk.Keys {
			v, ok := values[k.Name]
			if !ok {
				continue
			}
			if err := sc.Set(sk.Name, k.Name, v); err != nil {
				var ke *config.KeyError
				if errors.As(err, &ke) {
					return sc, nil, fmt.Errorf("%s = %s: allowed %s", named(k.Name), ke.Value, ke.Allowed)
				}
				return sc, nil, fmt.Errorf("%s: %v", named(k.Name), err)
			}
		}
	}
	fileSrc := src
	return sc, func(section, key string) string {
		if _, ok := values[key]; ok {
			return named(key)
		}
		return fileSrc(section, key)
	}, nil
}
