"""URL routes of the whole site: pages of the apps, the REST API, the admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from config.outage import healthz

# An exception outside a view that is a database outage still answers 503 (config.outage).
handler500 = "config.outage.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("", include("chat.urls")),
    path("me/tokens/", include("api.pages_urls")),
    path("me/", include("privacy.urls")),
    # Before the native webhooks, whose prefix mem0's webhook routes share (shapes apart).
    path("", include("api.mem0.webhook_urls")),
    path("api/", include("config.api_urls")),
    path("", include("api.mem0.urls")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # Django's set_language view (POST): the language switch in the page header.
    path("i18n/", include("django.conf.urls.i18n")),
]
