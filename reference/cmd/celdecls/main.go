// celdecls prints the functions of the Kubernetes 1.36 admission environment (with patch
// types, as the MutatingAdmissionPolicy plugin declares them for mutations) as JSON: each
// function's overload ids in cel-go's declaration order, which decides how the checker binds
// a free type parameter (the first overload that matches binds it).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apimachinery/pkg/util/version"
)

func main() {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(version.MajorMinor(1, 36)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_ = compiler
	env, err := environment.MustBaseEnvSet(version.MajorMinor(1, 36)).Env(environment.StoredExpressions)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := map[string][]string{}
	names := []string{}
	for name, fn := range env.Functions() {
		names = append(names, name)
		for _, o := range fn.OverloadDecls() {
			out[name] = append(out[name], o.ID())
		}
	}
	sort.Strings(names)
	enc := json.NewEncoder(os.Stdout)
	_ = enc.Encode(out)
}
