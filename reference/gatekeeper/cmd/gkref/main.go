// gkref: Gatekeeper's mutation System (github.com/open-policy-agent/gatekeeper/v3/pkg/mutation)
// as its mutation webhook runs it, for celmap's differential tests (test/reference/gk-*.ts).
//
// One JSON line in, one JSON line out, until stdin closes:
//
//	{"mutators": [<Assign|AssignMetadata|ModifySet (v1)|AssignImage (v1alpha1) as unstructured>],
//	 "object": {...}, "namespace": <Namespace object or null>, "operation": "CREATE"|"UPDATE",
//	 "username": "..."}
//
// Each mutator is decoded as the controller does (typed v1/v1alpha1 object, scheme.Convert to
// the unversioned type, mutators.MutatorFor*; pkg/controller/mutators/instances) after the CRD
// defaults the apiserver applies (ModifySet operation: merge). All are upserted into one
// mutation.NewSystem, and the object goes through the webhook's mutateRequest steps
// (pkg/webhook/mutation.go: the request namespace set on the object during mutation and
// restored after; System.Mutate with source Original). Answers:
//
//	{"ok": true, "mutated": bool, "object": {...}, "conflicts": ["Assign//a", ...]}
//	{"ok": false, "stage": "mutator", "index": i, "error": "..."}   // MutatorFor* or decoding refused it
//	{"ok": false, "stage": "mutate", "error": "..."}                // System.Mutate failed (webhook: 500)
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/google/uuid"
	mutationsunversioned "github.com/open-policy-agent/gatekeeper/v3/apis/mutations/unversioned"
	mutationsv1 "github.com/open-policy-agent/gatekeeper/v3/apis/mutations/v1"
	mutationsv1alpha1 "github.com/open-policy-agent/gatekeeper/v3/apis/mutations/v1alpha1"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/mutation"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/mutation/mutators"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/mutation/types"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

type request struct {
	Mutators  []map[string]interface{} `json:"mutators"`
	Object    map[string]interface{}   `json:"object"`
	Namespace map[string]interface{}   `json:"namespace"`
	Operation string                   `json:"operation"`
	Username  string                   `json:"username"`
}

type answer struct {
	OK        bool                   `json:"ok"`
	Stage     string                 `json:"stage,omitempty"`
	Index     *int                   `json:"index,omitempty"`
	Error     string                 `json:"error,omitempty"`
	Mutated   bool                   `json:"mutated"`
	Object    map[string]interface{} `json:"object,omitempty"`
	Conflicts []string               `json:"conflicts,omitempty"`
}

var scheme = runtime.NewScheme()

func init() {
	if err := mutationsv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := mutationsv1alpha1.AddToScheme(scheme); err != nil {
		panic(err)
	}
}

// crdDefaults applies what the mutator CRDs' structural schemas default on create.
func crdDefaults(u map[string]interface{}) {
	if u["kind"] != "ModifySet" {
		return
	}
	spec, _ := u["spec"].(map[string]interface{})
	params, _ := spec["parameters"].(map[string]interface{})
	if params != nil {
		if _, ok := params["operation"]; !ok {
			params["operation"] = "merge"
		}
	}
}

func mutatorFor(u map[string]interface{}) (types.Mutator, error) {
	crdDefaults(u)
	conv := runtime.DefaultUnstructuredConverter
	switch u["kind"] {
	case "Assign":
		typed := &mutationsv1.Assign{}
		if err := conv.FromUnstructured(u, typed); err != nil {
			return nil, err
		}
		out := &mutationsunversioned.Assign{}
		if err := scheme.Convert(typed, out, nil); err != nil {
			return nil, err
		}
		return mutators.MutatorForAssign(out)
	case "AssignMetadata":
		typed := &mutationsv1.AssignMetadata{}
		if err := conv.FromUnstructured(u, typed); err != nil {
			return nil, err
		}
		out := &mutationsunversioned.AssignMetadata{}
		if err := scheme.Convert(typed, out, nil); err != nil {
			return nil, err
		}
		return mutators.MutatorForAssignMetadata(out)
	case "ModifySet":
		typed := &mutationsv1.ModifySet{}
		if err := conv.FromUnstructured(u, typed); err != nil {
			return nil, err
		}
		out := &mutationsunversioned.ModifySet{}
		if err := scheme.Convert(typed, out, nil); err != nil {
			return nil, err
		}
		return mutators.MutatorForModifySet(out)
	case "AssignImage":
		typed := &mutationsv1alpha1.AssignImage{}
		if err := conv.FromUnstructured(u, typed); err != nil {
			return nil, err
		}
		out := &mutationsunversioned.AssignImage{}
		if err := scheme.Convert(typed, out, nil); err != nil {
			return nil, err
		}
		return mutators.MutatorForAssignImage(out)
	}
	return nil, fmt.Errorf("unknown mutator kind %v", u["kind"])
}

func handle(req request) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{OK: false, Stage: "panic", Error: fmt.Sprint(r)}
		}
	}()
	// A fixed UUID: error messages name it.
	sys := mutation.NewSystem(mutation.SystemOpts{NewUUID: func() uuid.UUID { return uuid.UUID{} }})
	ids := []types.ID{}
	for i, u := range req.Mutators {
		m, err := mutatorFor(u)
		if err != nil {
			idx := i
			return answer{OK: false, Stage: "mutator", Index: &idx, Error: err.Error()}
		}
		// A schema conflict is reported by Upsert, and the mutator is kept (and skipped by Mutate).
		_ = sys.Upsert(m)
		ids = append(ids, m.ID())
	}
	conflicts := []string{}
	for _, id := range ids {
		if len(sys.GetConflicts(id)) > 0 {
			conflicts = append(conflicts, id.Kind+"/"+id.Namespace+"/"+id.Name)
		}
	}
	sort.Strings(conflicts)

	// pkg/webhook/mutation.go mutateRequest.
	var ns *corev1.Namespace
	reqNamespace := ""
	if req.Namespace != nil {
		ns = &corev1.Namespace{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(req.Namespace, ns); err != nil {
			return answer{OK: false, Stage: "request", Error: err.Error()}
		}
		reqNamespace = ns.Name
	}
	raw, _ := json.Marshal(req.Object)
	obj := unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return answer{OK: false, Stage: "request", Error: err.Error()}
	}
	oldNS := obj.GetNamespace()
	obj.SetNamespace(reqNamespace)
	op := admissionv1.Create
	if req.Operation == "UPDATE" {
		op = admissionv1.Update
	}
	mutable := &types.Mutable{Object: &obj, Namespace: ns, Username: req.Username, Source: types.SourceTypeOriginal, Operation: op}
	mutated, err := sys.Mutate(context.Background(), mutable)
	if err != nil {
		return answer{OK: false, Stage: "mutate", Error: err.Error(), Conflicts: conflicts}
	}
	if !mutated {
		return answer{OK: true, Mutated: false, Object: req.Object, Conflicts: conflicts}
	}
	mutable.Object.SetNamespace(oldNS)
	out, err := mutable.Object.MarshalJSON()
	if err != nil {
		return answer{OK: false, Stage: "marshal", Error: err.Error()}
	}
	var back map[string]interface{}
	_ = json.Unmarshal(out, &back)
	return answer{OK: true, Mutated: true, Object: back, Conflicts: conflicts}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var req request
		var a answer
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			a = answer{OK: false, Stage: "request", Error: err.Error()}
		} else {
			a = handle(req)
		}
		_ = enc.Encode(a)
		_ = out.Flush()
	}
}
