from django.urls import include, path

from accounts import views

urlpatterns = [
    path("accounts/", include("allauth.urls")),
    path("i18n/language", views.set_language, name="set_language"),
    path("me", views.profile_me, name="profile_me"),
    path("me/settings", views.settings_page, name="profile_settings"),
    path("me/deleted", views.account_deleted, name="account_deleted"),
    path("u/<str:username>/", views.profile, name="profile"),
    path("leaderboards", views.leaderboards, name="leaderboards"),
    path("leaderboards/<str:ruleset>", views.leaderboard, name="leaderboard"),
]
