// celref compiles and evaluates CEL expressions in the Kubernetes 1.36 admission
// environment exactly as k8s.io/apiserver builds it, one JSON line in, one JSON line out.
//
// Request:  {"expr": "...", "mode": "base"|"mutation", "vars": {"object": {...}, "params": ...}}
// Response: {"ok": true, "value": <celjson>, "type": "list(int)", "cost": 12}
//
//	| {"ok": false, "stage": "compile"|"eval", "error": "...", "cost": 3}
//
// "base" is the admission environment without patch types (object, oldObject, params,
// request, namespaceObject, authorizer, variables), "mutation" adds Object/JSONPatch as the
// MutatingAdmissionPolicy plugin declares them for mutations.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/google/cel-go/cel"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/version"

	"celmap/reference/internal/celjson"
)

type request struct {
	Expr string                     `json:"expr"`
	Mode string                     `json:"mode"`
	Vars map[string]json.RawMessage `json:"vars"`
}

type response struct {
	OK    bool   `json:"ok"`
	Stage string `json:"stage,omitempty"`
	Error string `json:"error,omitempty"`
	Value any    `json:"value,omitempty"`
	Type  string `json:"type,omitempty"`
	Cost  *int64 `json:"cost,omitempty"`
}

type accessor struct{ expr string }

func (a accessor) GetExpression() string     { return a.expr }
func (a accessor) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType} }

func main() {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(version.MajorMinor(1, 36)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		var req request
		var resp response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			resp = response{Stage: "input", Error: err.Error()}
		} else {
			resp = evaluate(compiler, req)
		}
		_ = enc.Encode(resp)
		_ = out.Flush()
	}
}

func evaluate(compiler *plugincel.CompositedCompiler, req request) (resp response) {
	defer func() {
		if r := recover(); r != nil {
			resp = response{Stage: "panic", Error: fmt.Sprint(r)}
			if os.Getenv("CELREF_STACK") != "" {
				os.Stderr.Write(debug.Stack())
			}
		}
	}()
	opts := plugincel.OptionalVariableDeclarations{HasParams: true, HasAuthorizer: true, HasPatchTypes: req.Mode == "mutation"}
	result := compiler.CompileCELExpression(accessor{req.Expr}, opts, environment.StoredExpressions)
	if result.Error != nil {
		return response{Stage: "compile", Error: result.Error.Detail}
	}
	vars := map[string]any{}
	for name, raw := range req.Vars {
		var v any
		// As the apiserver decodes objects: integers become int64, other numbers float64.
		if err := utiljson.Unmarshal(raw, &v); err != nil {
			return response{Stage: "input", Error: err.Error()}
		}
		vars[name] = v
	}
	val, details, err := result.Program.ContextEval(context.Background(), vars)
	var cost *int64
	if details != nil && details.ActualCost() != nil {
		c := int64(*details.ActualCost())
		cost = &c
	}
	if err != nil {
		return response{Stage: "eval", Error: err.Error(), Cost: cost}
	}
	return response{OK: true, Value: celjson.Encode(val), Type: val.Type().TypeName(), Cost: cost}
}
