package scenarios

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// NumericKey reads a numeric [node] or [mpi] key's value.
func (sc *Scenario) NumericKey(section, key string) (float64, error) {
	v := reflect.ValueOf(&sc.Node).Elem()
	if section == "mpi" {
		v = reflect.ValueOf(&sc.MPI).Elem()
	}
	f, ok := field(v, key)
	switch {
	case ok && f.CanInt():
		return float64(f.Int()), nil
	case ok && f.CanFloat():
		return f.Float(), nil
	}
	return 0, fmt.Errorf("[%s] %s: not a numeric key", section, key)
}

// KeyValues is every key of the scenario as TOML value text, by
// "section.key" (what `validate` prints as the effective configuration).
func (sc *Scenario) KeyValues() (map[string]string, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(sc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	section := ""
	for _, l := range strings.Split(b.String(), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			section = strings.Trim(t, "[]")
		} else if k, v, ok := strings.Cut(t, " = "); ok && section != "" {
			out[section+"."+k] = v
		}
	}
	return out, nil
}
