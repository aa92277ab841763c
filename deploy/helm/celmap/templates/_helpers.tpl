{{- define "celmap.fullname" -}}
{{ .Release.Name }}-webhook
{{- end -}}

{{- define "celmap.selectorLabels" -}}
app.kubernetes.io/name: celmap
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "celmap.labels" -}}
{{ include "celmap.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: webhook
{{- end -}}
