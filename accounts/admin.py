"""The accounts' data in the admin: profiles (public or private) and standings, to look at.

Records and standings are written only by counting finished games; the admin shows them
read-only. A player's password is reset on the user's own admin page (Users).

Whether a profile is public is its player's choice. Staff may hide a public profile (make it
private), the one change the admin makes to a profile, and never show a private one: every
admin form of a profile (its page, and the list's should it ever edit in place) refuses it.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse

from accounts.adapters import name_free
from accounts.models import GameRecord, Profile, Standing
from games.web.admin import KnownSelection, SecretLookupsAdmin, ShownCodeSearch


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]  # one base for several models
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # written only by counting finished games; an account's deletion takes its own


PRIVATE_STAYS_PRIVATE = (
    "This profile is private, and only its player can make it public again (on their settings page). "
    "Staff may make a public profile private, not a private one public."
)


class ProfileForm(forms.ModelForm):  # type: ignore[type-arg]  # django-stubs' ModelForm is generic
    """A profile's *public* as staff may change it: from public to private only. The profile as
    stored when the form is posted decides, not the page as staff saw it: a player may have made
    their profile private since it was shown."""

    class Meta:
        model = Profile
        fields = ("public",)
        help_texts = {"public": "Untick to hide a public profile. Only its player can make a private profile public."}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stored_private = self.instance.pk is not None and not self.instance.public
        if self.stored_private and "public" in self.fields:
            self.fields["public"].disabled = True  # shown as it is; the check below refuses a forged post

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        # A disabled field takes its stored value whatever was posted: read the post itself, so a
        # forged or stale one is refused out loud rather than saved as something else.
        field = self.fields.get("public")
        if self.stored_private and field is not None:
            posted = field.widget.value_from_datadict(self.data, self.files, self.add_prefix("public"))
            if posted:
                raise ValidationError({"public": PRIVATE_STAYS_PRIVATE})
        return cleaned


@admin.register(Profile)
class ProfileAdmin(SecretLookupsAdmin):  # its controller column is never filtered on
    list_display = ("user", "public", "created_at")
    list_filter = ("public",)
    search_fields = ("user__username",)
    fields = ("user", "public", "created_at")
    readonly_fields = ("user", "created_at")
    form = ProfileForm
    actions: Any = None  # none that could show a profile; hiding one is done on its page

    def get_changelist_form(self, request: HttpRequest, **kwargs: Any) -> Any:
        # Should the list ever edit *public* in place, its forms refuse what the page's refuses.
        return super().get_changelist_form(request, **{"form": ProfileForm, **kwargs})

    def save_model(self, request: HttpRequest, obj: Profile, form: Any, change: bool) -> None:
        """Writes *public* only to make a profile private, and nothing else: a write of "public"
        as the form had it could show a profile its player made private since the form was
        checked; the other columns are not the admin's to write."""
        if change and not obj.public:
            Profile.objects.filter(pk=obj.pk).update(public=False)

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


class NamedUserChangeForm(UserChangeForm):  # type: ignore[type-arg]
    """A user's page: a new name that reads as another account's, or a deleted one's held, is
    refused as at sign-up (accounts.adapters.name_free); its own name in another case is its own."""

    def clean_username(self) -> str:
        name: str = self.cleaned_data["username"]
        name_free(name, user_id=self.instance.pk)
        return name


class NamedUserCreationForm(AdminUserCreationForm):  # type: ignore[type-arg]
    """A user added in the admin: refused a name that reads as another account's, as a sign-up is."""

    def clean_username(self) -> str:
        name = super().clean_username()
        if name:  # None where Django's own check refused it already
            name_free(name)
        return name


class AccountUserAdmin(KnownSelection, UserAdmin):  # type: ignore[type-arg]  # a ticked row no user's key is refused
    """Users, whose deletion (the one way the admin deletes anything) takes the account's profile,
    standings and records with it, its name withdrawn from its games first (accounts.receivers),
    though none of those may be deleted on its own. A name that reads as another account's is
    refused when a user is added or renamed, as at sign-up."""

    form = NamedUserChangeForm
    add_form = NamedUserCreationForm

    def changeform_view(
        self, request: HttpRequest, object_id: str | None = None, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except IntegrityError:
            if request.method != "POST":
                raise
            # The form's check passed, then another account took a name that reads as this one
            # before it was saved: the database refused the save and it was undone. Checked again,
            # the form says the name is taken; anything else refused is refused again, and raised.
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        own = {str(model._meta.verbose_name) for model in (Profile, Standing, GameRecord)}
        return deleted, counts, perms_needed - own, protected


if admin.site.is_registered(get_user_model()):
    admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AccountUserAdmin)
