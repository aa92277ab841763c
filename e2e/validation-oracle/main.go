// Command validation-oracle runs kube-apiserver's own create/update preparation and validation
// (the registry strategies of k8s.io/kubernetes v1.36.3: decode with defaulting, PrepareForCreate /
// PrepareForUpdate, object-meta and strategy validation) on objects read from stdin, and prints
// the apiserver's answer for each. It is a test oracle for celmap's src/validation: build it with
// `go build` here (Go module proxy needed once) and run it through
// `node dist/e2e/validation/compare.js --oracle e2e/validation-oracle/validation-oracle`.
//
// Input: a JSON array of {"id", "object", "oldObject"?}; output: a JSON array of
// {"id", "allowed", "code"?, "reason"?, "message"?, "object"?} (object: the stored object, defaulted).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apihelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	crdserverscheme "k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
)

type strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

type kindInfo struct {
	strategy strategy
	resource string
}

var kinds = map[string]kindInfo{
	"/Pod":              {pod.Strategy, "pods"},
	"/Service":          {service.Strategy, "services"},
	"/ConfigMap":        {configmap.Strategy, "configmaps"},
	"/Secret":           {secret.Strategy, "secrets"},
	"/Namespace":        {namespace.Strategy, "namespaces"},
	"/ServiceAccount":   {serviceaccount.Strategy, "serviceaccounts"},
	"apps/Deployment":   {deployment.Strategy, "deployments"},
	"apps/StatefulSet":  {statefulset.Strategy, "statefulsets"},
	"apps/DaemonSet":    {daemonset.Strategy, "daemonsets"},
	"apps/ReplicaSet":   {replicaset.Strategy, "replicasets"},
	"batch/Job":         {job.Strategy, "jobs"},
	"batch/CronJob":     {cronjob.Strategy, "cronjobs"},
}

type inCase struct {
	ID        string          `json:"id"`
	CRD       json.RawMessage `json:"crd,omitempty"`
	Object    json.RawMessage `json:"object"`
	OldObject json.RawMessage `json:"oldObject,omitempty"`
}

type outCase struct {
	ID      string          `json:"id"`
	Allowed bool            `json:"allowed"`
	Code    int32           `json:"code,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	Object  json.RawMessage `json:"object,omitempty"`
}

func decode(raw []byte) (runtime.Object, *schema.GroupVersionKind, error) {
	// The universal decoder defaults the versioned object and converts it to the internal version.
	return legacyscheme.Codecs.UniversalDecoder().Decode(raw, nil, nil)
}

func run(c inCase) outCase {
	if len(c.CRD) > 0 {
		return runCustomResource(c)
	}
	obj, gvk, err := decode(c.Object)
	if err != nil {
		return outCase{ID: c.ID, Code: 400, Reason: "BadRequest", Message: err.Error()}
	}
	info, ok := kinds[gvk.Group+"/"+gvk.Kind]
	if !ok {
		return outCase{ID: c.ID, Code: 400, Reason: "BadRequest", Message: "oracle: unsupported kind " + gvk.String()}
	}
	meta, _ := obj.(metav1.Object)
	ctx := genericapirequest.NewContext()
	ns := ""
	if info.strategy.NamespaceScoped() {
		ns = meta.GetNamespace()
		if ns == "" {
			ns = "default"
			meta.SetNamespace(ns)
		}
	}
	ctx = genericapirequest.WithNamespace(ctx, ns)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, APIGroup: gvk.Group, APIVersion: gvk.Version, Resource: info.resource, Namespace: meta.GetNamespace(), Name: meta.GetName()})
	if len(c.OldObject) == 0 {
		// What the create handler does before BeforeCreate: system fields, a generated name.
		rest.FillObjectMetaSystemFields(meta)
		if meta.GetName() == "" && meta.GetGenerateName() != "" {
			meta.SetName(meta.GetGenerateName() + "x2x4x")
		}
		err = rest.BeforeCreate(info.strategy, ctx, obj)
	} else {
		old, _, derr := decode(c.OldObject)
		if derr != nil {
			return outCase{ID: c.ID, Code: 400, Reason: "BadRequest", Message: "oldObject: " + derr.Error()}
		}
		if info.strategy.NamespaceScoped() {
			if om, ok := old.(metav1.Object); ok && om.GetNamespace() == "" {
				om.SetNamespace(meta.GetNamespace())
			}
		}
		err = rest.BeforeUpdate(info.strategy, ctx, obj, old)
	}
	if err != nil {
		if s, ok := err.(apierrors.APIStatus); ok {
			st := s.Status()
			return outCase{ID: c.ID, Code: st.Code, Reason: string(st.Reason), Message: st.Message}
		}
		return outCase{ID: c.ID, Code: 500, Reason: "InternalError", Message: err.Error()}
	}
	out := outCase{ID: c.ID, Allowed: true}
	versioned, cerr := legacyscheme.Scheme.ConvertToVersion(obj, gvk.GroupVersion())
	if cerr == nil {
		if b, merr := json.Marshal(versioned); merr == nil {
			out.Object = b
		}
	}
	return out
}

// crStrategy builds the custom resource strategy the apiserver builds for the object's version.
func crStrategy(crdJSON []byte, version string) (strategy, *structuralschema.Structural, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(crdJSON, &crd); err != nil {
		return nil, nil, err
	}
	v1schema, err := apihelpers.GetSchemaForVersion(&crd, version)
	if err != nil || v1schema == nil {
		return nil, nil, fmt.Errorf("no schema for version %q", version)
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1schema, internal, nil); err != nil {
		return nil, nil, err
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, nil, err
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	typer := crdserverscheme.NewUnstructuredObjectTyper()
	st := customresource.NewStrategy(typer, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind, validator, nil, structural, nil, nil, nil)
	return st, structural, nil
}

func decodeCR(raw []byte, structural *structuralschema.Structural) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	// What the CR codec and defaulter do on decode: prune, drop non-nullable nulls, default.
	structuralpruning.Prune(u.Object, structural, true)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, structural)
	structuraldefaulting.Default(u.Object, structural)
	return u, nil
}

func runCustomResource(c inCase) outCase {
	var probe struct {
		APIVersion string `json:"apiVersion"`
	}
	_ = json.Unmarshal(c.Object, &probe)
	gv, _ := schema.ParseGroupVersion(probe.APIVersion)
	st, structural, err := crStrategy(c.CRD, gv.Version)
	if err != nil {
		return outCase{ID: c.ID, Code: 400, Reason: "BadRequest", Message: "oracle: " + err.Error()}
	}
	u, err := decodeCR(c.Object, structural)
	if err != nil {
		return outCase{ID: c.ID, Code: 400, Reason: "BadRequest", Message: err.Error()}
	}
	ns := ""
	if st.NamespaceScoped() {
		ns = u.GetNamespace()
		if ns == "" {
			ns = "default"
			u.SetNamespace(ns)
		}
	}
	ctx := genericapirequest.WithNamespace(genericapirequest.NewContext(), ns)
	if len(c.OldObject) == 0 {
		rest.FillObjectMetaSystemFields(u)
		if u.GetName() == "" && u.GetGenerateName() != "" {
			u.SetName(u.GetGenerateName() + "x2x4x")
		}
		err = rest.BeforeCreate(st, ctx, u)
	} else {
		old, derr := decodeCR(c.OldObject, structural)
		if derr != nil {
			return outCase{ID: c.ID, Code: 400, Reason: "BadRequest", Message: "oldObject: " + derr.Error()}
		}
		if st.NamespaceScoped() && old.GetNamespace() == "" {
			old.SetNamespace(ns)
		}
		err = rest.BeforeUpdate(st, ctx, u, old)
	}
	if err != nil {
		if s, ok := err.(apierrors.APIStatus); ok {
			stt := s.Status()
			return outCase{ID: c.ID, Code: stt.Code, Reason: string(stt.Reason), Message: stt.Message}
		}
		return outCase{ID: c.ID, Code: 500, Reason: "InternalError", Message: err.Error()}
	}
	b, _ := u.MarshalJSON()
	return outCase{ID: c.ID, Allowed: true, Object: b}
}

func main() {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var cases []inCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		fmt.Fprintln(os.Stderr, "input:", err)
		os.Exit(2)
	}
	out := make([]outCase, 0, len(cases))
	for _, c := range cases {
		out = append(out, run(c))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

var _ = context.Background
