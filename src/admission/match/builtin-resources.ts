/**
 * The resources kube-apiserver 1.36 serves, transcribed from the Kubernetes OpenAPI document
 * (`shared/k8s-openapi/swagger.json`, which lists every group-version, including alpha and beta
 * ones that are off by default). `builtin-resources.test.ts` re-derives this table from that
 * document and fails if they differ.
 *
 * Format, one string per group-version: space-separated entries
 * `resource:Kind:N|C[:sub,sub=Kind,sub=group/version/Kind]` — N namespaced, C cluster-scoped;
 * a subresource's kind is the resource's own kind unless given (`scale=autoscaling/v1/Scale`;
 * a bare `Kind` is in the same group-version). Core is the group-version `v1`.
 * Kubernetes API definitions are Apache-2.0 licensed (the Kubernetes project).
 */
export const BUILTIN_RESOURCES: Readonly<Record<string, string>> = {
  "v1": "bindings:Binding:N componentstatuses:ComponentStatus:C configmaps:ConfigMap:N endpoints:Endpoints:N events:Event:N limitranges:LimitRange:N namespaces:Namespace:C:finalize,status nodes:Node:C:proxy=NodeProxyOptions,status persistentvolumeclaims:PersistentVolumeClaim:N:status persistentvolumes:PersistentVolume:C:status pods:Pod:N:attach=PodAttachOptions,binding=Binding,ephemeralcontainers,eviction=policy/v1/Eviction,exec=PodExecOptions,log,portforward=PodPortForwardOptions,proxy=PodProxyOptions,resize,status podtemplates:PodTemplate:N replicationcontrollers:ReplicationController:N:scale=autoscaling/v1/Scale,status resourcequotas:ResourceQuota:N:status secrets:Secret:N serviceaccounts:ServiceAccount:N:token=authentication.k8s.io/v1/TokenRequest services:Service:N:proxy=ServiceProxyOptions,status",
  "admissionregistration.k8s.io/v1": "mutatingadmissionpolicies:MutatingAdmissionPolicy:C mutatingadmissionpolicybindings:MutatingAdmissionPolicyBinding:C mutatingwebhookconfigurations:MutatingWebhookConfiguration:C validatingadmissionpolicies:ValidatingAdmissionPolicy:C:status validatingadmissionpolicybindings:ValidatingAdmissionPolicyBinding:C validatingwebhookconfigurations:ValidatingWebhookConfiguration:C",
  "admissionregistration.k8s.io/v1alpha1": "mutatingadmissionpolicies:MutatingAdmissionPolicy:C mutatingadmissionpolicybindings:MutatingAdmissionPolicyBinding:C",
  "admissionregistration.k8s.io/v1beta1": "mutatingadmissionpolicies:MutatingAdmissionPolicy:C mutatingadmissionpolicybindings:MutatingAdmissionPolicyBinding:C",
  "apiextensions.k8s.io/v1": "customresourcedefinitions:CustomResourceDefinition:C:status",
  "apiregistration.k8s.io/v1": "apiservices:APIService:C:status",
  "apps/v1": "controllerrevisions:ControllerRevision:N daemonsets:DaemonSet:N:status deployments:Deployment:N:scale=autoscaling/v1/Scale,status replicasets:ReplicaSet:N:scale=autoscaling/v1/Scale,status statefulsets:StatefulSet:N:scale=autoscaling/v1/Scale,status",
  "authentication.k8s.io/v1": "selfsubjectreviews:SelfSubjectReview:C tokenreviews:TokenReview:C",
  "authorization.k8s.io/v1": "localsubjectaccessreviews:LocalSubjectAccessReview:N selfsubjectaccessreviews:SelfSubjectAccessReview:C selfsubjectrulesreviews:SelfSubjectRulesReview:C subjectaccessreviews:SubjectAccessReview:C",
  "autoscaling/v1": "horizontalpodautoscalers:HorizontalPodAutoscaler:N:status",
  "autoscaling/v2": "horizontalpodautoscalers:HorizontalPodAutoscaler:N:status",
  "batch/v1": "cronjobs:CronJob:N:status jobs:Job:N:status",
  "certificates.k8s.io/v1": "certificatesigningrequests:CertificateSigningRequest:C:approval,status",
  "certificates.k8s.io/v1alpha1": "clustertrustbundles:ClusterTrustBundle:C",
  "certificates.k8s.io/v1beta1": "clustertrustbundles:ClusterTrustBundle:C podcertificaterequests:PodCertificateRequest:N:status",
  "coordination.k8s.io/v1": "leases:Lease:N",
  "coordination.k8s.io/v1alpha2": "leasecandidates:LeaseCandidate:N",
  "coordination.k8s.io/v1beta1": "leasecandidates:LeaseCandidate:N",
  "discovery.k8s.io/v1": "endpointslices:EndpointSlice:N",
  "events.k8s.io/v1": "events:Event:N",
  "flowcontrol.apiserver.k8s.io/v1": "flowschemas:FlowSchema:C:status prioritylevelconfigurations:PriorityLevelConfiguration:C:status",
  "internal.apiserver.k8s.io/v1alpha1": "storageversions:StorageVersion:C:status",
  "networking.k8s.io/v1": "ingressclasses:IngressClass:C ingresses:Ingress:N:status ipaddresses:IPAddress:C networkpolicies:NetworkPolicy:N servicecidrs:ServiceCIDR:C:status",
  "networking.k8s.io/v1beta1": "ipaddresses:IPAddress:C servicecidrs:ServiceCIDR:C:status",
  "node.k8s.io/v1": "runtimeclasses:RuntimeClass:C",
  "policy/v1": "poddisruptionbudgets:PodDisruptionBudget:N:status",
  "rbac.authorization.k8s.io/v1": "clusterrolebindings:ClusterRoleBinding:C clusterroles:ClusterRole:C rolebindings:RoleBinding:N roles:Role:N",
  "resource.k8s.io/v1": "deviceclasses:DeviceClass:C resourceclaims:ResourceClaim:N:status resourceclaimtemplates:ResourceClaimTemplate:N resourceslices:ResourceSlice:C",
  "resource.k8s.io/v1alpha3": "devicetaintrules:DeviceTaintRule:C:status resourcepoolstatusrequests:ResourcePoolStatusRequest:C:status",
  "resource.k8s.io/v1beta1": "deviceclasses:DeviceClass:C resourceclaims:ResourceClaim:N:status resourceclaimtemplates:ResourceClaimTemplate:N resourceslices:ResourceSlice:C",
  "resource.k8s.io/v1beta2": "deviceclasses:DeviceClass:C devicetaintrules:DeviceTaintRule:C:status resourceclaims:ResourceClaim:N:status resourceclaimtemplates:ResourceClaimTemplate:N resourceslices:ResourceSlice:C",
  "scheduling.k8s.io/v1": "priorityclasses:PriorityClass:C",
  "scheduling.k8s.io/v1alpha2": "podgroups:PodGroup:N:status workloads:Workload:N",
  "storage.k8s.io/v1": "csidrivers:CSIDriver:C csinodes:CSINode:C csistoragecapacities:CSIStorageCapacity:N storageclasses:StorageClass:C volumeattachments:VolumeAttachment:C:status volumeattributesclasses:VolumeAttributesClass:C",
  "storage.k8s.io/v1beta1": "volumeattributesclasses:VolumeAttributesClass:C",
  "storagemigration.k8s.io/v1beta1": "storageversionmigrations:StorageVersionMigration:C:status",
};
