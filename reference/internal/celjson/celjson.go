// Package celjson encodes CEL values as tagged JSON so that two engines' results
// compare as plain data: {"int":"5"}, {"list":[...]}, {"map":[[k,v],...]} (keys sorted), ...
// The TypeScript side (test/reference/encode.ts) encodes celmap values the same way.
package celjson

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Encode returns the tagged form of v.
func Encode(v ref.Val) any {
	switch x := v.(type) {
	case types.Null:
		return map[string]any{"null": nil}
	case types.Bool:
		return map[string]any{"bool": bool(x)}
	case types.Int:
		return map[string]any{"int": strconv.FormatInt(int64(x), 10)}
	case types.Uint:
		return map[string]any{"uint": strconv.FormatUint(uint64(x), 10)}
	case types.Double:
		return map[string]any{"double": Double(float64(x))}
	case types.String:
		return map[string]any{"string": string(x)}
	case types.Bytes:
		return map[string]any{"bytes": base64.StdEncoding.EncodeToString([]byte(x))}
	case types.Timestamp:
		return map[string]any{"timestamp": strconv.FormatInt(x.Time.Unix(), 10) + "." + strconv.Itoa(x.Time.Nanosecond())}
	case types.Duration:
		return map[string]any{"duration": strconv.FormatInt(int64(x.Duration), 10)}
	case *types.Optional:
		if !x.HasValue() {
			return map[string]any{"optional": nil}
		}
		return map[string]any{"optional": Encode(x.GetValue())}
	case *types.Type:
		return map[string]any{"type": x.TypeName()}
	}
	if l, ok := v.(traits.Lister); ok {
		n := int(l.Size().(types.Int))
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, Encode(l.Get(types.Int(i))))
		}
		return map[string]any{"list": out}
	}
	if m, ok := v.(traits.Mapper); ok {
		type kv struct {
			k   string
			key any
			val any
		}
		var entries []kv
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			key := Encode(k)
			kb, _ := json.Marshal(key)
			entries = append(entries, kv{string(kb), key, Encode(m.Get(k))})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].k < entries[j].k })
		out := make([]any, 0, len(entries))
		for _, e := range entries {
			out = append(out, []any{e.key, e.val})
		}
		return map[string]any{"map": out}
	}
	return map[string]any{"opaque": v.Type().TypeName()}
}

// Double spells a float as JSON can carry it: a number, or "NaN", "+Inf", "-Inf", "-0".
func Double(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case f == 0 && math.Signbit(f):
		return "-0"
	}
	return f
}
