"""The accounts' data in the admin: profiles (public or private) and standings, to look at.

Records and standings are written only by counting finished games; the admin shows them
read-only. A player's password is reset on the user's own admin page (Users).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest

from accounts.models import GameRecord, Profile, Standing
from games.web.admin import SecretLookupsAdmin, ShownCodeSearch


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]  # one base for several models
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # written only by counting finished games; an account's deletion takes its own


@admin.register(Profile)
class ProfileAdmin(SecretLookupsAdmin):  # its controller column is never filtered on
    list_display = ("user", "public", "created_at")
    list_filter = ("public",)
    search_fields = ("user__username",)
    fields = ("user", "public", "created_at")
    readonly_fields = ("user", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a profile goes with its account (Users), which withdraws its name first


@admin.register(Standing)
class StandingAdmin(ReadOnly):
    list_display = ("user", "ruleset", "games", "wins", "rated", "ordinal", "accuracy")
    list_filter = ("ruleset",)
    search_fields = ("user__username",)


@admin.register(GameRecord)
class GameRecordAdmin(ShownCodeSearch, ReadOnly):  # a game's code found as the site shows it too
    list_display = ("game", "user", "ruleset", "finished_at", "rank", "score", "lost")
    list_filter = ("ruleset",)
    search_fields = ("user__username", "game__code")
    list_select_related = ("game", "user")
    raw_id_fields = ("game", "player", "user")


class AccountUserAdmin(UserAdmin):  # type: ignore[type-arg]
    """Users, whose deletion (the one way the admin deletes anything) takes the account's profile,
    standings and records with it, its name withdrawn from its games first (accounts.receivers),
    though none of those may be deleted on its own."""

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        own = {str(model._meta.verbose_name) for model in (Profile, Standing, GameRecord)}
        return deleted, counts, perms_needed - own, protected


if admin.site.is_registered(get_user_model()):
    admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AccountUserAdmin)
