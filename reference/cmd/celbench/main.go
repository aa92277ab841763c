// celbench measures cel-go as kube-apiserver 1.36 runs it, for bench/reference.ts: per expression,
// the per-policy compile (the admission plugin's CompileCELExpression in the Kubernetes
// environment), evaluation with the environment's cost tracking (how the apiserver always
// evaluates), and evaluation in a plain cel-go environment without cost tracking.
//
// Input (stdin, one JSON document):
//
//	{"object": {...}, "expressions": [{"id": "E1", "source": "..."}], "evalMs": 150, "compileN": 300, "reps": 9}
//
// Output: {"go": "go1.26.x", "gomaxprocs": 2, "results": [{"id", "compileUs", "evalUs", "evalCostUs", "value", "cost"}]}
// Every figure is CPU time (user + system of the whole process, garbage collection included) per
// operation, the median of `reps` samples. The object is decoded once, as the apiserver decodes a
// request; evaluation binds it in a fresh activation per request, which is all the per-request
// conversion cel-go needs (its values wrap the decoded maps lazily).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/google/cel-go/cel"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/version"

	"celmap/reference/internal/celjson"
)

type expression struct {
	ID     string `json:"id"`
	Source string `json:"source"`
}

type input struct {
	Object      json.RawMessage `json:"object"`
	Expressions []expression    `json:"expressions"`
	EvalMs      int             `json:"evalMs"`
	CompileN    int             `json:"compileN"`
	Reps        int             `json:"reps"`
}

type result struct {
	ID         string  `json:"id"`
	CompileUs  float64 `json:"compileUs"`
	EvalUs     float64 `json:"evalUs"`
	EvalCostUs float64 `json:"evalCostUs"`
	Value      any     `json:"value"`
	Cost       int64   `json:"cost"`
}

type accessor struct{ expr string }

func (a accessor) GetExpression() string     { return a.expr }
func (a accessor) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType} }

var sink any

// cpuNow is the process's CPU time (all threads, user + system).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perOp runs f in growing batches for about ms milliseconds of wall time and returns CPU µs per call.
func perOp(ms int, f func()) float64 {
	n, batch := 0, 1
	start, cpu0 := time.Now(), cpuNow()
	deadline := start.Add(time.Duration(ms) * time.Millisecond)
	for time.Now().Before(deadline) {
		for i := 0; i < batch; i++ {
			f()
		}
		n += batch
		if batch < 1024 && time.Since(start) < time.Duration(ms)*time.Millisecond/50 {
			batch *= 2
		}
	}
	return float64(cpuNow()-cpu0) / 1e3 / float64(n)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "celbench: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("input: %v", err)
	}
	var object any
	// As the apiserver decodes objects: integers int64, other numbers float64.
	if err := utiljson.Unmarshal(in.Object, &object); err != nil {
		fail("object: %v", err)
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(version.MajorMinor(1, 36)))
	if err != nil {
		fail("%v", err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasParams: true, HasAuthorizer: true}
	plain, err := cel.NewEnv(cel.Variable("object", cel.DynType))
	if err != nil {
		fail("%v", err)
	}
	ctx := context.Background()
	results := make([]result, len(in.Expressions))
	samples := make([][3][]float64, len(in.Expressions))
	for rep := 0; rep < in.Reps; rep++ {
		for i, e := range in.Expressions {
			var k8s plugincel.CompilationResult
			cpu0 := cpuNow()
			for j := 0; j < in.CompileN; j++ {
				k8s = compiler.CompileCELExpression(accessor{e.Source}, opts, environment.StoredExpressions)
			}
			samples[i][0] = append(samples[i][0], float64(cpuNow()-cpu0)/1e3/float64(in.CompileN))
			if k8s.Error != nil {
				fail("%s: %v", e.ID, k8s.Error)
			}
			ast, iss := plain.Compile(e.Source)
			if iss.Err() != nil {
				fail("%s (plain environment): %v", e.ID, iss.Err())
			}
			prg, err := plain.Program(ast, cel.EvalOptions(cel.OptOptimize))
			if err != nil {
				fail("%s: %v", e.ID, err)
			}
			samples[i][1] = append(samples[i][1], perOp(in.EvalMs, func() {
				v, _, _ := prg.ContextEval(ctx, map[string]any{"object": object})
				sink = v
			}))
			samples[i][2] = append(samples[i][2], perOp(in.EvalMs, func() {
				v, _, _ := k8s.Program.ContextEval(ctx, map[string]any{"object": object})
				sink = v
			}))
			if rep == 0 {
				v, details, err := k8s.Program.ContextEval(ctx, map[string]any{"object": object})
				if err != nil {
					fail("%s: %v", e.ID, err)
				}
				results[i].ID = e.ID
				results[i].Value = celjson.Encode(v)
				if details != nil && details.ActualCost() != nil {
					results[i].Cost = int64(*details.ActualCost())
				}
			}
		}
	}
	for i := range results {
		results[i].CompileUs = median(samples[i][0])
		results[i].EvalUs = median(samples[i][1])
		results[i].EvalCostUs = median(samples[i][2])
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	_ = out.Encode(map[string]any{"go": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0), "results": results})
}
