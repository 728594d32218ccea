"""mem0's webhook routes, matched before the native `/api/v1/webhooks/…` (config/urls.py) whose
prefix they share: a project's webhooks (`projects/{id}/`, no native route has two segments) and
a webhook by mem0's numeric id (native ids are UUIDs). Both answer a 501 naming the native API."""

from django.urls import path

from api.mem0 import more_apis as more

urlpatterns = [
    path(
        "api/v1/webhooks/projects/<str:project_id>/",
        more.Mem0ProjectWebhooksApi.as_view(),
        name="mem0-webhooks-project",
    ),
    path("api/v1/webhooks/<int:webhook_id>/", more.Mem0WebhookApi.as_view(), name="mem0-webhook"),
]
