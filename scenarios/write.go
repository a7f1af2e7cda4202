package scenarios

import (
	"bytes"
	"fmt"

	"nocsim/plots"
)

// WriteFile writes what fill produces to path whole or not at all.
func WriteFile(path string, fill func(*bytes.Buffer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return plots.WriteFileAtomic(path, &b)
}
