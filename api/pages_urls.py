"""Routes of the API app's own pages, mounted under /me/ (config/urls.py)."""

from django.urls import path

from api import pages

app_name = "api-pages"

urlpatterns = [
    path("", pages.tokens, name="tokens"),
    path("<int:token_id>/revoke/", pages.token_revoke, name="token_revoke"),
]
