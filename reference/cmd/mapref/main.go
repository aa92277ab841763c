// mapref admits one request through the apiserver's MutatingAdmissionPolicy dispatcher
// (k8s.io/apiserver/pkg/admission/plugin/policy/mutating: matching, bindings, match
// conditions, variables, ApplyConfiguration through structured-merge-diff with the built-in
// OpenAPI models of client-go's embedded documents, JSONPatch), one JSON line in, one out.
//
// Request:  {"policies": [MAP], "bindings": [MAPB], "namespaces": [Namespace],
//
//	"operation": "CREATE", "object": {...}, "oldObject": {...}|null,
//	"resource": {"group","version","resource"}}
//
// Response: {"allowed": true, "object": {...}} | {"allowed": false, "code": 403, "message": "..."}
//
// Params: "params" holds ConfigMaps; a policy whose paramKind is v1 ConfigMap reads them through
// the generic dispatcher's CollectParams (paramRef by name or selector, namespaced,
// parameterNotFoundAction); any other paramKind is a configuration error here.
//
// Reinvocation: the request runs through the admission chain's reinvoker
// (k8s.io/apiserver/pkg/admission/reinvocation.go, unexported, written out below): the
// dispatcher is called again with IsReinvoke set when it asked for it, as the apiserver does
// with the MAP plugin in its chain (no other plugins or webhooks here).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/openapi/openapitest"
	"k8s.io/client-go/tools/cache"
)

type gvr struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

type request struct {
	Policies   []admissionregistrationv1.MutatingAdmissionPolicy        `json:"policies"`
	Bindings   []admissionregistrationv1.MutatingAdmissionPolicyBinding `json:"bindings"`
	Namespaces []corev1.Namespace                                       `json:"namespaces"`
	Operation  string                                                   `json:"operation"`
	Object     json.RawMessage                                          `json:"object"`
	OldObject  json.RawMessage                                          `json:"oldObject"`
	Resource   gvr                                                      `json:"resource"`
	Params     []json.RawMessage                                        `json:"params"`
	CRDs       []json.RawMessage                                        `json:"crds"`
}

type response struct {
	Allowed bool   `json:"allowed"`
	Object  any    `json:"object,omitempty"`
	Code    int32  `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// compilePolicy is the plugin's own compilePolicy (mutating/compilation.go, unexported),
// written out with the same exported calls.
func compilePolicy(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator {
	opts := plugincel.OptionalVariableDeclarations{HasParams: policy.Spec.ParamKind != nil, HasAuthorizer: true}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return mutating.PolicyEvaluator{Error: &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: fmt.Sprintf("failed to initialize CEL compiler: %v", err)}}
	}
	var variables []plugincel.NamedExpressionAccessor
	for _, v := range policy.Spec.Variables {
		variables = append(variables, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(variables, opts, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if len(policy.Spec.MatchConditions) > 0 {
		accessors := make([]plugincel.ExpressionAccessor, len(policy.Spec.MatchConditions))
		for i := range policy.Spec.MatchConditions {
			accessors[i] = (*matchconditions.MatchCondition)(&policy.Spec.MatchConditions[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(accessors, opts, environment.StoredExpressions), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	}
	var patchers []patch.Patcher
	patchOptions := opts
	patchOptions.HasPatchTypes = true
	for _, m := range policy.Spec.Mutations {
		switch m.PatchType {
		case admissionregistrationv1.PatchTypeJSONPatch:
			if m.JSONPatch != nil {
				r := compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, patchOptions, environment.StoredExpressions)
				patchers = append(patchers, patch.NewJSONPatcher(r))
			}
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			if m.ApplyConfiguration != nil {
				r := compiler.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, patchOptions, environment.StoredExpressions)
				patchers = append(patchers, patch.NewApplyConfigurationPatcher(r))
			}
		}
	}
	return mutating.PolicyEvaluator{Matcher: matcher, Mutators: patchers, CompositedCompiler: compiler}
}

// defaultPolicy applies the API defaults the apiserver sets when a policy is created
// (k8s.io/kubernetes pkg/apis/admissionregistration/v1/defaults.go: SetDefaults_MatchResources,
// SetDefaults_MutatingAdmissionPolicySpec), which the plugin relies on.
func defaultPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		f := admissionregistrationv1.Fail
		p.Spec.FailurePolicy = &f
	}
	if p.Spec.MatchConstraints != nil {
		defaultMatchResources(p.Spec.MatchConstraints)
	}
}

func defaultMatchResources(m *admissionregistrationv1.MatchResources) {
	if m.MatchPolicy == nil {
		e := admissionregistrationv1.Equivalent
		m.MatchPolicy = &e
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
}

// paramInformer serves params from an in-memory indexer (always synced), as the plugin's
// informer for the paramKind would.
type paramInformer struct {
	lister cache.GenericLister
}

type syncedInformer struct{ cache.SharedIndexInformer }

func (syncedInformer) HasSynced() bool { return true }

func (p paramInformer) Informer() cache.SharedIndexInformer { return syncedInformer{} }
func (p paramInformer) Lister() cache.GenericLister         { return p.lister }

// chain is the admission chain with the MAP plugin alone.
type chain struct {
	dispatcher generic.Dispatcher[mutating.PolicyHook]
	hooks      []mutating.PolicyHook
}

func (c chain) Handles(admission.Operation) bool { return true }
func (c chain) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	return c.dispatcher.Dispatch(ctx, a, o, c.hooks)
}

// reinvoke is the apiserver's reinvoker (k8s.io/apiserver/pkg/admission/reinvocation.go
// reinvoker.Admit): admit, then once more with IsReinvoke set if a plugin asked for it.
func reinvoke(ctx context.Context, c chain, a admission.Attributes, o admission.ObjectInterfaces) error {
	if err := c.Admit(ctx, a, o); err != nil {
		return err
	}
	s := a.GetReinvocationContext()
	if s.ShouldReinvoke() {
		s.SetIsReinvoke()
		return c.Admit(ctx, a, o)
	}
	return nil
}

type denyAll struct{}

func (denyAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "", nil
}

func main() {
	ctx := context.Background()
	tcm := newCRDTypeConverters(patch.NewTypeConverterManager(nil, openapitest.NewEmbeddedFileClient()))
	go tcm.Run(ctx)
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	decoder := codecs.UniversalDeserializer()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		var req request
		var resp response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			resp = response{Error: "input: " + err.Error()}
		} else {
			resp = admit(ctx, tcm, decoder, req)
		}
		_ = enc.Encode(resp)
		_ = out.Flush()
	}
}

// decode decodes an object into its Go type (client-go scheme) as the apiserver decodes a
// request, or, for a kind the scheme does not know (a custom resource), into an Unstructured.
func decode(decoder runtime.Decoder, raw []byte) (runtime.Object, *schema.GroupVersionKind, error) {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, nil, err
	}
	if scheme.Scheme.Recognizes(tm.GroupVersionKind()) {
		return decoder.Decode(raw, nil, nil)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, nil, err
	}
	k := u.GroupVersionKind()
	return u, &k, nil
}

func admit(ctx context.Context, tcm *crdTypeConverters, decoder runtime.Decoder, req request) (resp response) {
	defer func() {
		if r := recover(); r != nil {
			resp = response{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	for _, raw := range req.CRDs {
		if err := tcm.register(raw); err != nil {
			return response{Error: err.Error()}
		}
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range req.Namespaces {
		_ = indexer.Add(&req.Namespaces[i])
	}
	matcher := matching.NewMatcher(listersv1.NewNamespaceLister(indexer), fake.NewSimpleClientset())
	if err := matcher.ValidateInitialization(); err != nil {
		return response{Error: err.Error()}
	}
	dispatcher := mutating.NewDispatcher(denyAll{}, matcher, tcm)
	paramIndexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for i, raw := range req.Params {
		p, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			return response{Error: fmt.Sprintf("params[%d]: %v", i, err)}
		}
		_ = paramIndexer.Add(p)
	}
	configMaps := paramInformer{lister: cache.NewGenericLister(paramIndexer, schema.GroupResource{Resource: "configmaps"})}
	var hooks []mutating.PolicyHook
	for i := range req.Policies {
		p := &req.Policies[i]
		defaultPolicy(p)
		h := mutating.PolicyHook{Policy: p, Evaluator: compilePolicy(p)}
		for j := range req.Bindings {
			if req.Bindings[j].Spec.PolicyName == p.Name {
				if req.Bindings[j].Spec.MatchResources != nil {
					defaultMatchResources(req.Bindings[j].Spec.MatchResources)
				}
				h.Bindings = append(h.Bindings, &req.Bindings[j])
			}
		}
		if pk := p.Spec.ParamKind; pk != nil {
			if pk.APIVersion == "v1" && pk.Kind == "ConfigMap" {
				h.ParamInformer = configMaps
				h.ParamScope = meta.RESTScopeNamespace
			} else {
				h.ConfigurationError = fmt.Errorf("mapref: paramKind %s is not supported", pk.String())
			}
		}
		hooks = append(hooks, h)
	}
	obj, gvk, err := decode(decoder, req.Object)
	if err != nil {
		return response{Error: "object: " + err.Error()}
	}
	var old runtime.Object
	if len(req.OldObject) > 0 && string(req.OldObject) != "null" {
		if old, _, err = decode(decoder, req.OldObject); err != nil {
			return response{Error: "oldObject: " + err.Error()}
		}
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return response{Error: err.Error()}
	}
	resource := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	attrs := admission.NewAttributesRecord(obj, old, *gvk, m.GetNamespace(), m.GetName(), resource, "", admission.Operation(req.Operation), nil, false, nil)
	err = reinvoke(ctx, chain{dispatcher: dispatcher, hooks: hooks}, attrs, admission.NewObjectInterfacesFromScheme(scheme.Scheme))
	if err != nil {
		if se, ok := err.(apierrors.APIStatus); ok {
			return response{Code: se.Status().Code, Message: se.Status().Message}
		}
		return response{Code: 500, Message: err.Error()}
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(attrs.GetObject())
	if err != nil {
		return response{Error: err.Error()}
	}
	return response{Allowed: true, Object: u}
}
