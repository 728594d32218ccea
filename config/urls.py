"""URL routes of the whole site."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from chat import views as chat_views

urlpatterns = [
    path("", chat_views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
