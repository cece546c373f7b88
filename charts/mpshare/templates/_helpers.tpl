{{/* Names and labels shared by every template. */}}
{{- define "mpshare.fullname" -}}
{{- if contains "mpshare" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-mpshare" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "mpshare.labels" -}}
app.kubernetes.io/name: mpshare
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mpshare
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Selector labels of one component: (dict "ctx" $ "component" "webhook") */}}
{{- define "mpshare.selector" -}}
app.kubernetes.io/name: mpshare
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "mpshare.image" -}}
{{- $tag := .tag | default .ctx.Values.image.tag | default .ctx.Chart.AppVersion -}}
{{- printf "%s:%s" .ctx.Values.image.repository $tag -}}
{{- end -}}

{{- define "mpshare.webhookService" -}}{{ include "mpshare.fullname" . }}-webhook{{- end -}}
{{- define "mpshare.webhookTlsSecret" -}}
{{- if eq .Values.webhook.tls.mode "secret" -}}{{ required "webhook.tls.secretName is required when webhook.tls.mode=secret" .Values.webhook.tls.secretName }}{{- else -}}{{ include "mpshare.fullname" . }}-webhook-tls{{- end -}}
{{- end -}}

{{/* Arguments every node and scheduler component shares. */}}
{{- define "mpshare.commonArgs" -}}
- --gpu-mem-unit={{ .Values.gpuMemUnit }}
- --context-reserve-mib={{ .Values.contextReserveMiB }}
{{- end -}}

{{/* Hardened container securityContext with the given capabilities: (dict "caps" list "privileged" bool) */}}
{{- define "mpshare.containerSecurity" -}}
{{- if .privileged }}
privileged: true
{{- else }}
privileged: false
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
  {{- with .caps }}
  add:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The parts every webhook entry shares: (dict "ctx" $ "svc" name "path" "/validate" "ca" bundle "tenancy" "strict"|"trusted"
"ephemeral" bool). Each namespace is sent to exactly one entry of a configuration: the one for its mpshare.io/tenancy
label, or for tenancy.default when it has none, so the webhook learns the namespace's tenancy from the path alone. */}}
{{- define "mpshare.webhookCommon" -}}
{{- $default := .ctx.Values.tenancy.default -}}
{{- $other := ternary "strict" "trusted" (eq $default "trusted") -}}
admissionReviewVersions: [v1]
sideEffects: None
failurePolicy: {{ .ctx.Values.webhook.failurePolicy }}
timeoutSeconds: {{ .ctx.Values.webhook.timeoutSeconds }}
matchPolicy: Equivalent
clientConfig:
  service:
    name: {{ .svc }}
    namespace: {{ .ctx.Release.Namespace }}
    path: {{ .path }}{{ if eq .tenancy "trusted" }}/trusted{{ end }}
    port: 443
  {{- with .ca }}
  caBundle: {{ . }}
  {{- end }}
rules:
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [pods]
    scope: Namespaced
  {{- if .ephemeral }}
  # kubectl debug adds ephemeral containers to a running pod through this subresource
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [UPDATE]
    resources: [pods/ephemeralcontainers]
    scope: Namespaced
  {{- end }}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: {{ list "kube-system" .ctx.Release.Namespace | uniq | toJson }}
    - key: {{ .ctx.Values.webhook.optOutLabel }}
      operator: NotIn
      values: [disabled]
    - key: {{ .ctx.Values.tenancy.label }}
      operator: {{ ternary "NotIn" "In" (eq .tenancy $default) }}
      values: [{{ $other }}]
{{- with .ctx.Values.webhook.matchConditions }}
matchConditions:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* A CEL list literal of single-quoted strings: ['a', 'b'] */}}
{{- define "mpshare.celStrings" -}}
[{{ range $i, $s := . }}{{ if $i }}, {{ end }}'{{ $s }}'{{ end }}]
{{- end -}}

{{/* CEL: the annotation keys k of a pod that this request adds, changes or removes and for which the CEL condition
given (over k) holds; object is the pod after the request, oldObject before (null on CREATE). */}}
{{- define "mpshare.changedAnnotations" -}}
(has(object.metadata.annotations) ? object.metadata.annotations.filter(k, {{ . }}
&& (oldObject == null || !has(oldObject.metadata.annotations) || !(k in oldObject.metadata.annotations)
|| oldObject.metadata.annotations[k] != object.metadata.annotations[k])) : [])
+ (oldObject != null && has(oldObject.metadata.annotations) ? oldObject.metadata.annotations.filter(k, {{ . }}
&& (!has(object.metadata.annotations) || !(k in object.metadata.annotations))) : [])
{{- end -}}
