package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// value is a decoded JSON value that keeps its objects' key order, so
// that a table's columns read in the order the writer chose (encoding/json
// into a map would sort them, and the order of a struct's fields says what
// belongs together).
type value struct {
	kind   byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys   []string
	fields []*value // object: one per key
	items  []*value // array
	text   string   // scalar: the string, or the number exactly as written
}

// parseJSON decodes one JSON document.
func parseJSON(b []byte) (*value, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// parseJSONLines decodes a file of one JSON value a line (points.jsonl)
// as an array.
func parseJSONLines(b []byte) (*value, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	all := &value{kind: 'a'}
	for d.More() {
		v, err := decodeValue(d)
		if err != nil {
			return nil, err
		}
		all.items = append(all.items, v)
	}
	return all, nil
}

func decodeValue(d *json.Decoder) (*value, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &value{kind: 'o'}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				f, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k.(string))
				v.fields = append(v.fields, f)
			}
			_, err := d.Token() // '}'
			return v, err
		case '[':
			v := &value{kind: 'a'}
			for d.More() {
				it, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, it)
			}
			_, err := d.Token() // ']'
			return v, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &value{kind: 's', text: t}, nil
	case json.Number:
		return &value{kind: 'n', text: t.String()}, nil
	case bool:
		return &value{kind: 'b', text: fmt.Sprint(t)}, nil
	case nil:
		return &value{kind: 'z', text: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", t)
}

// field is an object's value of key k, nil if it has none.
func (v *value) field(k string) *value {
	for i, key := range v.keys {
		if key == k {
			return v.fields[i]
		}
	}
	return nil
}

// scalar reports whether v is neither an object nor an array.
func (v *value) scalar() bool { return v.kind != 'o' && v.kind != 'a' }

// flat reports whether v is a scalar or an array of scalars: what a table
// cell shows on one line.
func (v *value) flat() bool {
	if v.kind == 'o' {
		return false
	}
	for _, it := range v.items {
		if !it.scalar() {
			return false
		}
	}
	return true
}

// rowsOf reports whether v is an array of objects: a table, one row per
// object.
func (v *value) rowsOf() bool {
	if v.kind != 'a' || len(v.items) == 0 {
		return false
	}
	for _, it := range v.items {
		if it.kind != 'o' {
			return false
		}
	}
	return true
}

// inline is a flat value's text: a scalar as written, an array of
// scalars as its items separated by commas.
func (v *value) inline() string {
	if v.scalar() {
		return v.text
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range v.items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.text)
	}
	b.WriteByte(']')
	return b.String()
}
