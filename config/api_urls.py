"""REST API routes (`/api/v1/…`), the OpenAPI schema and its docs (served offline)."""

from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

# The two documentation pages style themselves inline (Swagger UI's page, Redoc's styled components,
# Redoc's search worker from a blob): allowed there only, where nothing user-written is shown.
_DOCS_CSP = {"style-src": ["'unsafe-inline'"], "worker-src": ["blob:"], "img-src": ["data:"]}

urlpatterns = [
    path("v1/", include("api.v1.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its script from a URL instead of inline, as script-src 'self' requires.
    path(
        "docs/",
        csp_update(_DOCS_CSP)(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path(
        "redoc/", csp_update(_DOCS_CSP)(SpectacularRedocView.as_view(url_name="api-schema")), name="api-redoc"
    ),
]
