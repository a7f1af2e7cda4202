package thesis

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// What `thesis fit` takes and gives beside the fit itself: the keys it
// may fit by name, the keys set apart from the base file (which must go
// into the written machine too), and its report.

// FitKeyNames lists FitKeys' names, comma-separated, as the --keys flag
// allows them.
func FitKeyNames() string {
	var ks []string
	for _, k := range FitKeys {
		ks = append(ks, k.Key)
	}
	return strings.Join(ks, ",")
}

// FitKeysNamed returns the FitKeys named in a comma-separated list; bad
// is the first name that is not one of them (then keys is nil).
func FitKeysNamed(list string) (keys []FitKey, bad string) {
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(FitKeys, func(k FitKey) bool { return k.Key == name })
		if i < 0 {
			return nil, name
		}
		keys = append(keys, FitKeys[i])
	}
	return keys, ""
}

// SetApart is WriteMachine's set: the keys of sc that setApart says were
// given apart from the base file (flags), as TOML value text by
// "section.key". The machine file must be the machine the fit ran on.
func SetApart(sc *scenarios.Scenario, setApart func(section, key string) bool) (map[string]string, error) {
	vals, err := sc.KeyValues()
	if err != nil {
		return nil, err
	}
	set := map[string]string{}
	for _, sk := range scenarios.Sections() {
		for _, k := range sk.Keys {
			if setApart(sk.Name, k.Name) {
				set[sk.Name+"."+k.Name] = vals[sk.Name+"."+k.Name]
			}
		}
	}
	return set, nil
}

// WriteText prints the fitted keys, how well they fit and the table they
// were fitted on.
func (f FitResult) WriteText(w io.Writer) error {
	for i, k := range f.Keys {
		section, key, _ := strings.Cut(k, ".")
		fmt.Fprintf(w, "[%s] %s = %.4g cycles\n", section, key, f.Values[i])
	}
	fmt.Fprintf(w, "RMS of log(nocsim/thesis) over Table 5.1's %d times: %.4f (start %.4f)\n\n", 2*len(f.Results), f.RMSLog, f.Start)
	return report.WriteThesisTable(w, f.Results)
}
