package main

// Custom resources: the CRDs given with a request are served to the dispatcher's type converter
// as the apiserver serves them. The apiserver's OpenAPI v3 controller builds each CRD version's
// document with builder.BuildOpenAPIV3 (k8s.io/apiextensions-apiserver
// pkg/controller/openapiv3/controller.go buildV3Spec, V2 false) and the MAP plugin's
// TypeConverterManager turns a group-version's document into a type converter with
// managedfields.NewTypeConverter(doc.Components.Schemas, false)
// (k8s.io/apiserver pkg/admission/plugin/policy/mutating/patch/typeconverter.go
// GetTypeConverter). crdTypeConverters does both for the CRDs' group-versions and asks the
// upstream manager (client-go's embedded built-in documents) for everything else; the upstream
// manager fetches documents through /openapi/v3 on a 5-second poll, which a one-shot request
// cannot wait for.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/kube-openapi/pkg/spec3"
)

type crdTypeConverters struct {
	builtin patch.TypeConverterManager
	mu      sync.Mutex
	// By group-version: the converter made from the CRD's document, keyed by the CRD's JSON.
	byGV map[schema.GroupVersion]crdConverter
}

type crdConverter struct {
	source string
	tc     managedfields.TypeConverter
}

func newCRDTypeConverters(builtin patch.TypeConverterManager) *crdTypeConverters {
	return &crdTypeConverters{builtin: builtin, byGV: map[schema.GroupVersion]crdConverter{}}
}

func (c *crdTypeConverters) Run(ctx context.Context) { c.builtin.Run(ctx) }

// register makes the type converters of each served version of crd (raw JSON).
func (c *crdTypeConverters) register(raw json.RawMessage) error {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(raw, &crd); err != nil {
		return fmt.Errorf("crd: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range crd.Spec.Versions {
		gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
		if e, ok := c.byGV[gv]; ok && e.source == string(raw) {
			continue
		}
		doc, err := builder.BuildOpenAPIV3(&crd, v.Name, builder.Options{V2: false})
		if err != nil {
			return fmt.Errorf("crd %s version %s: %w", crd.Name, v.Name, err)
		}
		// Through JSON, as the manager reads the document it fetched.
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		tc, err := typeConverterFromDocument(b)
		if err != nil {
			return fmt.Errorf("crd %s version %s: %w", crd.Name, v.Name, err)
		}
		c.byGV[gv] = crdConverter{source: string(raw), tc: tc}
	}
	return nil
}

func (c *crdTypeConverters) GetTypeConverter(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	c.mu.Lock()
	e, ok := c.byGV[gvk.GroupVersion()]
	c.mu.Unlock()
	if ok {
		return e.tc
	}
	return c.builtin.GetTypeConverter(gvk)
}

func typeConverterFromDocument(b []byte) (managedfields.TypeConverter, error) {
	var sch spec3.OpenAPI
	if err := json.Unmarshal(b, &sch); err != nil {
		return nil, err
	}
	return managedfields.NewTypeConverter(sch.Components.Schemas, false)
}
