"""URL routes of the privacy app."""

from django.urls import path

app_name = "privacy"

urlpatterns: list = []
