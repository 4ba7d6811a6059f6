"""A profile's privacy is its player's choice: staff may hide a public profile, never show a private one."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.urls import reverse

from accounts import services as account_services
from accounts.admin import PRIVATE_STAYS_PRIVATE, ProfileAdmin
from accounts.models import Profile

pytestmark = pytest.mark.django_db


def profile(name: str, *, public: bool) -> Profile:
    user = get_user_model().objects.create_user(username=name, password="x" * 20)
    account_services.profile_set_public(user_id=user.pk, public=public)
    return Profile.objects.get(user=user)


def change_url(p: Profile) -> str:
    return reverse("admin:accounts_profile_change", args=[p.pk])


def superuser_request(method: str = "get", data: dict[str, Any] | None = None) -> Any:
    request = getattr(RequestFactory(), method)("/admin/", data or {})
    users = get_user_model().objects
    request.user = users.filter(is_superuser=True).first() or users.create_superuser("boss", password="x" * 20)
    return request


def test_staff_cannot_tick_a_private_profile_public_on_its_page(admin_client: Client) -> None:
    private = profile("pia", public=False)
    response = admin_client.post(change_url(private), {"public": "on"})
    assert Profile.objects.get(pk=private.pk).public is False, "staff made a player's private profile public"
    assert response.status_code == 200  # the page again, saying why
    assert PRIVATE_STAYS_PRIVATE in unescape(response.content.decode())


def test_the_page_of_a_private_profile_shows_its_public_box_as_staff_cannot_tick_it(admin_client: Client) -> None:
    private = profile("pia", public=False)
    page = admin_client.get(change_url(private)).content.decode()
    box = next(tag for tag in page.split("<input")[1:] if 'name="public"' in tag)
    assert "disabled" in box.split(">")[0]
    public = profile("pat", public=True)
    page = admin_client.get(change_url(public)).content.decode()
    box = next(tag for tag in page.split("<input")[1:] if 'name="public"' in tag)
    assert "disabled" not in box.split(">")[0]


def test_staff_can_hide_a_public_profile(admin_client: Client) -> None:
    public = profile("pat", public=True)
    response = admin_client.post(change_url(public), {})  # the box unticked
    assert response.status_code == 302
    assert Profile.objects.get(pk=public.pk).public is False


def test_saving_a_public_profile_unchanged_keeps_it_public(admin_client: Client) -> None:
    public = profile("pat", public=True)
    assert admin_client.post(change_url(public), {"public": "on"}).status_code == 302
    assert Profile.objects.get(pk=public.pk).public is True


def test_a_profile_its_player_made_private_while_staff_had_it_open_stays_private() -> None:
    """Staff's form was checked against the profile as it was (public); the player makes it private
    before the save: saving the form's "public" as it stood would show the profile again."""
    pat = profile("pat", public=True)
    model_admin = admin.site._registry[Profile]
    request = superuser_request("post", {"public": "on"})
    form = model_admin.get_form(request, pat, change=True)({"public": "on"}, instance=pat)
    assert form.is_valid(), form.errors
    account_services.profile_set_public(user_id=pat.user_id, public=False)  # the player, meanwhile
    model_admin.save_model(request, form.save(commit=False), form, True)
    assert Profile.objects.get(pk=pat.pk).public is False


def every_admin_form_of_a_profile(private: Profile) -> list[tuple[str, Any]]:
    """Each admin form class that could write a profile's *public*: the profile's page and its list
    (should it edit in place), and any inline of a profile on another model's page (the user's)."""
    request = superuser_request()
    forms: list[tuple[str, Any]] = []
    for model, model_admin in admin.site._registry.items():
        if model is Profile:
            forms.append(("the profile's page", model_admin.get_form(request, private, change=True)))
            forms.append(("the list of profiles", model_admin.get_changelist_form(request)))
        obj = private.user if model is get_user_model() else None
        for inline in model_admin.get_inline_instances(request, obj):
            if inline.model is Profile:
                forms.append((f"{model.__name__}'s page", inline.get_formset(request, obj).form))
    return forms


def test_no_admin_form_of_a_profile_makes_a_private_one_public() -> None:
    private = profile("pia", public=False)
    forms = every_admin_form_of_a_profile(private)
    assert len(forms) >= 2
    for where, form_class in forms:
        form = form_class({"public": "on"}, instance=Profile.objects.get(pk=private.pk))
        if "public" not in form.fields:
            continue
        assert not form.is_valid(), f"{where} lets staff make a private profile public"
        assert PRIVATE_STAYS_PRIVATE in str(form.errors), where
    assert Profile.objects.get(pk=private.pk).public is False


def test_the_list_of_profiles_edited_in_place_cannot_show_a_private_one(
    admin_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list edits nothing today; were *public* made editable there, its post is refused too."""
    private = profile("pia", public=False)
    model_admin = admin.site._registry[Profile]
    assert isinstance(model_admin, ProfileAdmin)
    monkeypatch.setattr(model_admin, "list_editable", ("public",))
    response = admin_client.post(
        reverse("admin:accounts_profile_changelist"),
        {
            "form-TOTAL_FORMS": "1",
            "form-INITIAL_FORMS": "1",
            "form-0-id": str(private.pk),
            "form-0-public": "on",
            "_save": "Save",
        },
    )
    assert Profile.objects.get(pk=private.pk).public is False
    assert PRIVATE_STAYS_PRIVATE in unescape(response.content.decode())


def test_no_bulk_action_on_profiles_and_the_users_page_does_not_write_one(admin_client: Client) -> None:
    private = profile("pia", public=False)
    assert not admin.site._registry[Profile].get_actions(superuser_request())
    admin_client.post(
        reverse("admin:accounts_profile_changelist"),
        {"action": "make_public", "_selected_action": [private.pk], "index": "0"},
    )
    user = private.user
    response = admin_client.post(
        reverse("admin:auth_user_change", args=[user.pk]),
        {
            "username": user.username,
            "is_active": "on",
            "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
            "profile-TOTAL_FORMS": "1",
            "profile-INITIAL_FORMS": "1",
            "profile-0-id": str(private.pk),
            "profile-0-user": str(user.pk),
            "profile-0-public": "on",
        },
    )
    assert response.status_code == 302, "the user's page refused the post: it tested nothing"
    assert Profile.objects.get(pk=private.pk).public is False


@pytest.mark.parametrize("ticked", ["abc", "1.5", "\x00", "9" * 30])
def test_a_users_selection_naming_no_row_deletes_nobody_and_says_so_not_a_server_error(
    admin_client: Client, ticked: str
) -> None:
    """A hand-made post of "delete selected" whose ticked row is no user's key (not a number, or
    past the column's range) selects nothing: the list says so, and the user ticked beside it is
    neither deleted nor asked about, as in the games' lists."""
    user = get_user_model().objects.create_user(username="uma", password="x" * 20)
    admin_client.raise_request_exception = False
    for post in ("", "yes"):  # the action asked, and its confirmation
        fields = {"action": "delete_selected", "_selected_action": [ticked, str(user.pk)], "post": post}
        response = admin_client.post(reverse("admin:auth_user_changelist"), fields, follow=True)
        assert response.status_code == 200, response.status_code
        assert "The selection names no row of this list: select again." in unescape(response.content.decode())
        assert get_user_model().objects.filter(pk=user.pk).exists()
