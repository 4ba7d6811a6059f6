"""Account names that read alike are one name: the sign-up's check, a rename in the admin and a
deleted account's hold compare names by one rule (``accounts.validators.name_skeleton``), and the
database keeps one account to a name so compared, whatever signs up at the same moment."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.adapters import AccountAdapter
from accounts.validators import capitals_skeleton, name_hold_key, name_skeleton
from tests.accounts.helpers import PASSWORD, sign_up
from tests.store.test_migrations import _migrate, latest_after  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db

# Drawn alike in the site's font: a capital I, a small l and the digit 1; a capital O and a zero.
GLYPH_TWINS = [("Ann1", "Annl"), ("Annl", "AnnI"), ("AnnI", "Ann1"), ("B0b", "BOb"), ("BOb", "b0b")]
# Letters that case-folding or a language's own spelling makes one: the German ß and ss, the Greek
# final and medial sigma, the Turkish dotless and dotted i beside the plain ones.
SPELLING_TWINS = [("Straße", "STRASSE"), ("Οδυσσευς", "ΟΔΥΣΣΕΥΣ"), ("Dılek", "Dilek"), ("İpek", "Ipek")]
# Names of another alphabet's letters drawn as the Latin ones, capitals among them: the Greek
# capital "Ν" is drawn as "N", though its small letter is drawn as a "v".
ALPHABET_TWINS = [("ANNA", "ΑΝΝΑ"), ("NOAH", "ΝΟΑΗ"), ("cop", "сор"), ("TOM", "τομ")]
# One name in capitals and in small letters, whatever each is drawn as: the Greek small "ν" is
# drawn as a "v", its capital as an "N".
CASE_TWINS = [("ΝΙΚΟ", "νικο"), ("νικος", "ΝΙΚΟΣ"), ("Νικος", "νΙΚΟΣ"), ("νανα", "ΝΑΝΑ")]


def names() -> list[str]:
    return list(get_user_model().objects.order_by("pk").values_list("username", flat=True))


def refused(name: str) -> Any:
    response = Client().post("/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200, f"{name!r} was taken"
    return response.context["form"].errors.as_data()["username"]


@pytest.mark.parametrize(("taken", "twin"), GLYPH_TWINS + SPELLING_TWINS + ALPHABET_TWINS + CASE_TWINS)
def test_a_name_that_reads_as_anothers_is_refused_at_sign_up(taken: str, twin: str) -> None:
    sign_up(Client(), taken)
    errors = refused(twin)
    # PostgreSQL's UPPER() folds some of these alike: then allauth's own "taken" comes first.
    assert [e.code for e in errors] in (["lookalike"], ["username_taken"])
    assert names() == [taken]


@pytest.mark.parametrize(("taken", "twin"), GLYPH_TWINS + SPELLING_TWINS + ALPHABET_TWINS)
def test_the_held_names_key_is_the_sign_up_checks_rule(taken: str, twin: str) -> None:
    """What the check calls one name, a hold holds as one: the key is the name's skeleton, keyed."""
    assert name_skeleton(taken) == name_skeleton(twin)
    assert name_hold_key(taken) == name_hold_key(twin)
    sign_up(Client(), taken)
    get_user_model().objects.filter(username=taken).delete()
    assert [e.code for e in refused(twin)] == ["held"]


@pytest.mark.parametrize(("taken", "twin"), CASE_TWINS)
def test_a_deleted_accounts_name_is_held_in_every_case(taken: str, twin: str) -> None:
    sign_up(Client(), taken)
    get_user_model().objects.filter(username=taken).delete()
    assert [e.code for e in refused(twin)] == ["held"]


@pytest.mark.parametrize(("taken", "twin"), CASE_TWINS)
def test_the_database_keeps_one_account_to_a_name_in_any_case(taken: str, twin: str) -> None:
    """Past every check (a save the receivers did not see, allauth's own case-insensitive check
    raced): the second account of a name in another case is refused by the database."""
    from django.db import IntegrityError, transaction

    from accounts.models import AccountName
    from accounts.services import NameTaken

    users = get_user_model().objects
    users.create_user(username=taken, password=PASSWORD)
    with pytest.raises(NameTaken):
        users.create_user(username=twin, password=PASSWORD)
    other = users.create_user(username="zed", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        AccountName.objects.filter(user=other).update(skeleton=name_skeleton(twin), capitals=capitals_skeleton(twin))


def every_case_of(char: str) -> set[str]:
    return {char, char.lower(), char.upper(), char.casefold(), char.title(), char.swapcase()}


def test_every_letters_cases_are_one_name_and_only_the_known_letters_read_otherwise_in_capitals() -> None:
    """Over every code point Unicode assigns: the forms of a character that differ only by case
    (the same ``name_key``) are one name, as a room and the accounts compare them; and the name in
    capitals reads as the name itself but for the small Greek nu (drawn as "v", its capital as "N")
    and the Greek small letters whose capitals Unicode writes as a letter and a mark."""
    import sys
    import unicodedata

    from games.services.codes import name_key, name_skeletons

    moved: set[str] = set()
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        if unicodedata.category(char) in ("Cn", "Cs", "Co"):
            continue
        keys = name_skeletons(char)
        for case in every_case_of(char):
            if name_key(case) == name_key(char):
                assert name_skeletons(case)[1] == keys[1], (hex(point), case)
        if keys[0] != keys[1]:
            moved.add(unicodedata.normalize("NFKC", char))
    assert moved == set("νὐὒὔὖᾶᾷῆῇῖῤῦ")


@pytest.mark.parametrize(("one", "other"), [("Ann", "Anna"), ("Bob", "Bab"), ("ann_lee", "ann_leo"), ("barn", "bam")])
def test_names_that_read_differently_are_two_names(one: str, other: str) -> None:
    assert name_skeleton(one) != name_skeleton(other)
    sign_up(Client(), one)
    sign_up(Client(), other)


@pytest.mark.parametrize("name", ["adm1n", "r00t", "AdmIn", "C0mputer"])
def test_a_reserved_name_is_reserved_in_its_look_alike_glyphs_too(name: str) -> None:
    assert [e.code for e in refused(name)] == ["reserved"]


@pytest.mark.parametrize("competitor", ["Ann1", "annl"])
def test_a_look_alike_signed_up_between_the_check_and_the_save_is_the_same_form_error(
    monkeypatch: pytest.MonkeyPatch, competitor: str
) -> None:
    """Another sign-up makes ``competitor`` just after this one's name was checked: the database
    refuses the second account, and the form says so as its check would have."""
    clean_username = AccountAdapter.clean_username
    made: list[str] = []

    def checking(self: AccountAdapter, username: str, shallow: bool = False) -> str:
        name = clean_username(self, username, shallow)
        if not shallow and not made:
            made.append(get_user_model().objects.create_user(username=competitor, password=PASSWORD).username)
        return name

    monkeypatch.setattr(AccountAdapter, "clean_username", checking)
    errors = refused("Annl")
    assert [e.code for e in errors] in (["lookalike"], ["username_taken"])
    assert names() == [competitor]


def test_sign_up_looks_the_name_up_by_its_key_without_scanning_the_names() -> None:
    sign_up(Client(), "cop")
    with CaptureQueriesContext(connection) as queries:
        refused("c0p")
    scans = [q["sql"] for q in queries if "REGEXP" in q["sql"].upper() or "::text ~" in q["sql"]]
    assert scans == []


def admin_user_form(user: Any, **changes: str) -> dict[str, str]:
    return {
        "username": user.username,
        "is_active": "on",
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "profile-TOTAL_FORMS": "0",
        "profile-INITIAL_FORMS": "0",
        **changes,
    }


def test_staff_cannot_rename_an_account_to_a_name_that_reads_as_anothers(admin_client: Client) -> None:
    users = get_user_model().objects
    users.create_user(username="B0b", password=PASSWORD)
    ann = users.create_user(username="ann", password=PASSWORD)
    url = reverse("admin:auth_user_change", args=[ann.pk])
    response = admin_client.post(url, admin_user_form(ann, username="BOb"))
    assert response.status_code == 200
    assert [e.code for e in response.context["adminform"].form.errors.as_data()["username"]] == ["lookalike"]
    assert users.get(pk=ann.pk).username == "ann"
    # Its own name in another case reads as itself: saved.
    assert admin_client.post(url, admin_user_form(ann, username="Ann")).status_code == 302
    assert users.get(pk=ann.pk).username == "Ann"
    add = admin_client.post(
        reverse("admin:auth_user_add"),
        {"username": "BOB", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true"},
    )
    assert add.status_code == 200
    assert [e.code for e in add.context["adminform"].form.errors.as_data()["username"]] == ["lookalike"]


def test_a_rename_that_meets_a_look_alike_made_meanwhile_is_the_same_form_error(
    admin_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The admin's check passed before "B0b" was made: the database refuses the rename, and the
    page shows the form again with the check's error."""
    from accounts import admin as accounts_admin

    users = get_user_model().objects
    ann = users.create_user(username="ann", password=PASSWORD)
    users.create_user(username="B0b", password=PASSWORD)
    name_free = accounts_admin.name_free
    checks: list[str] = []

    def missed_once(name: str, **kwargs: Any) -> None:
        checks.append(name)
        if len(checks) > 1:
            name_free(name, **kwargs)

    monkeypatch.setattr(accounts_admin, "name_free", missed_once)
    response = admin_client.post(reverse("admin:auth_user_change", args=[ann.pk]), admin_user_form(ann, username="BOb"))
    assert response.status_code == 200
    assert [e.code for e in response.context["adminform"].form.errors.as_data()["username"]] == ["lookalike"]
    assert users.get(pk=ann.pk).username == "ann"


def test_the_database_keeps_one_account_to_a_name_as_names_are_compared() -> None:
    """Past every check (a save the receivers did not see): the unique skeleton refuses the second
    row, but for an account marked as reading as an older one."""
    from django.db import IntegrityError, transaction

    from accounts.models import AccountName

    users = get_user_model().objects
    users.create_user(username="Ann1", password=PASSWORD)
    other = users.create_user(username="zed", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        AccountName.objects.filter(user=other).update(skeleton=name_skeleton("AnnI"))
    AccountName.objects.filter(user=other).update(skeleton=name_skeleton("AnnI"), reads_as_older=True)


def test_a_shell_cannot_save_a_user_under_a_name_that_reads_as_anothers() -> None:
    """Outside a form, too: refused before the user is written."""
    from accounts.services import NameTaken

    users = get_user_model().objects
    users.create_user(username="B0b", password=PASSWORD)
    with pytest.raises(NameTaken):
        users.create_user(username="BOB", password=PASSWORD)
    ann = users.create_user(username="ann", password=PASSWORD)
    ann.username = "b0b"
    with pytest.raises(NameTaken):
        ann.save()
    assert names() == ["B0b", "ann"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_after")
def test_the_migration_stores_every_accounts_name_and_keeps_look_alikes_made_before() -> None:
    """Accounts made before names were compared glyph by glyph keep their names, the older one
    holding it; a new name that reads as either is refused, and both may still be saved."""
    apps = _migrate([("accounts", "0007_sign_in_log_attempt_time_indexes")])
    old_users = apps.get_model("auth", "User").objects
    for name in ["Ann1", "Annl", "bob"]:
        old_users.create(username=name)
    _migrate([("accounts", "0011_account_names_in_capitals_of_every_account")])
    from accounts.models import AccountName

    rows = {row.user.username: (row.skeleton, row.reads_as_older) for row in AccountName.objects.select_related("user")}
    assert rows == {"Ann1": ("annl", False), "Annl": ("annl", True), "bob": ("bob", False)}
    assert names() == ["Ann1", "Annl", "bob"]
    assert [e.code for e in refused("AnnI")] == ["lookalike"]
    for user in get_user_model().objects.all():
        user.set_password(PASSWORD)
        user.save()
    assert AccountName.objects.get(user__username="Annl").reads_as_older


def test_a_hold_keyed_without_the_glyphs_still_holds_its_name_until_it_ends() -> None:
    """A hold whose key compared names by case, width, Latin look-alikes and separators only (its
    name is not kept, so it cannot be keyed anew) holds that name still."""
    from datetime import timedelta

    from django.utils import timezone
    from django.utils.crypto import salted_hmac

    from accounts.models import HeldName

    key = salted_hmac("accounts.HeldName", "dilek", algorithm="sha256").hexdigest()
    HeldName.objects.create(key=key, until=timezone.now() + timedelta(days=1))
    assert [e.code for e in refused("Di_lek")] == ["held"]
    HeldName.objects.update(until=timezone.now() - timedelta(seconds=1))
    sign_up(Client(), "Di_lek")


# Skeletons stored for accounts and holds (accounts.models.AccountName, HeldName): the rule may move,
# its output may not, or a stored name would no longer hold its look-alikes.
PINNED_SKELETONS = {
    "Ann1": "annl",
    "AnnI": "annl",
    "B0b": "bob",
    "ann_lee": "annlee",
    "a.n-n+l@e": "annle",
    "Straße": "strasse",
    "ΟΔΥΣΣΕΥΣ": "oδyσσeyσ",
    "сор": "cop",
    "ΤΟΜ": "tom",
    "ΑΝΝΑ": "anna",
    "νικος": "vlkoσ",
    "İpek": "lpek",
    "Dılek": "dllek",
    "\uff46\uff55\uff4c\uff4c": "full",
    "Former player": "former player",
    "Ann–Lee": "annlee",
    "Ann·Lee": "annlee",
    "Ann\ua78fLee": "annlee",
    "Ann\u318dLee": "annlee",
}
# The skeleton of each name in capitals (AccountName.capitals), stored as the skeleton is.
PINNED_CAPITALS = {"νικος": "nlkoσ", "ΝΙΚΟΣ": "nlkoσ", "ΑΝΝΑ": "anna", "Straße": "strasse", "ὐλη": "y\u0313\u03bbh"}


@pytest.mark.parametrize(("name", "skeleton"), PINNED_CAPITALS.items())
def test_a_names_stored_skeleton_in_capitals_stays_what_it_was(name: str, skeleton: str) -> None:
    assert capitals_skeleton(name) == skeleton


# Letters a username may hold that are drawn as a middle dot: the Latin sinological dot, the
# Canadian syllabics final middle dot, the Hangul araea (and its compatibility letter).
DOT_LETTERS = ["Ann\ua78fLee", "Ann\u1427Lee", "Ann\u119eLee", "Ann\u318dLee"]


@pytest.mark.parametrize("twin", ["Ann–Lee", "Ann—Lee", "Ann·Lee", "Ann‿Lee", "Ann・Lee", *DOT_LETTERS])
def test_a_name_parted_by_another_dash_or_dot_is_the_name_parted_by_a_hyphen(twin: str) -> None:
    assert name_skeleton(twin) == name_skeleton("Ann-Lee") == name_skeleton("Ann_Lee")
    sign_up(Client(), "Ann-Lee")
    assert refused(twin)  # not a username's letter, or one that reads as Ann-Lee
    assert names() == ["Ann-Lee"]


def as_the_release_before_made_it(username: str, *, row: bool) -> Any:
    """An account made by a process of the release before this one while the upgrade ran: no
    AccountName row at all, or one without its name in capitals."""
    from accounts.models import AccountName

    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    if row:
        AccountName.objects.filter(user=user).update(capitals=None)
    else:
        AccountName.objects.filter(user=user).delete()
    return user


@pytest.mark.parametrize("row", [False, True])
def test_an_account_the_release_before_made_holds_its_name_without_being_saved_again(row: bool) -> None:
    from accounts.models import AccountName

    user = as_the_release_before_made_it("ΝΙΚΟ", row=row)
    errors = refused("νικο")
    assert [e.code for e in errors] in (["lookalike"], ["username_taken"])
    assert [e.code for e in refused("NIK0")] == ["lookalike"]
    stored = AccountName.objects.get(user=user)
    assert (stored.skeleton, stored.capitals, stored.reads_as_older) == ("nlko", "nlko", False)
    assert names() == ["ΝΙΚΟ"]


def test_the_check_completes_the_newest_accounts_by_a_few_index_reads(
    django_assert_max_num_queries: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each name check looks for accounts without their names among the newest only: an account the
    release before made is among them at the next sign-up, and the user table is not read whole."""
    from accounts import services
    from accounts.models import AccountName

    monkeypatch.setattr(services, "NEWEST_ACCOUNTS", 3)
    old, *_, new = [get_user_model().objects.create_user(username=name, password=PASSWORD)
                    for name in ("Old", "Bea", "Cy", "Dot", "New")]  # fmt: skip
    AccountName.objects.filter(user__in=[old, new]).delete()  # as the release before left them
    assert services.account_names_complete() == 1
    assert AccountName.objects.filter(user=new).exists()
    assert not AccountName.objects.filter(user=old).exists()  # older than the newest three
    with django_assert_max_num_queries(3):  # the newest id, then one look each for the two kinds of gap
        assert services.account_names_complete() == 0


def test_an_account_the_release_before_made_under_a_name_taken_meanwhile_keeps_it_marked() -> None:
    """Made by the release before while a look-alike signed up here: both keep their names, the
    later one marked as reading as the older, and the name stays refused to a third."""
    from accounts.models import AccountName

    users = get_user_model().objects
    older = users.create_user(username="Ann1", password=PASSWORD)
    later = as_the_release_before_made_it("later", row=False)
    users.filter(pk=later.pk).update(username="Annl")
    assert [e.code for e in refused("AnnI")] == ["lookalike"]
    rows = dict(AccountName.objects.values_list("user_id", "reads_as_older"))
    assert rows == {older.pk: False, later.pk: True}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_after")
def test_the_migration_stores_every_accounts_name_in_capitals_and_keeps_names_in_two_cases() -> None:
    """Accounts of one name in two cases (allauth's check raced, or SQLite compared Greek by
    case) keep their names, the later marked; an account made without a row by the release
    before gets one; a new name in a third case is refused."""
    apps = _migrate([("accounts", "0009_account_names_of_every_account")])
    old_users = apps.get_model("auth", "User").objects
    old_names = apps.get_model("accounts", "AccountName").objects
    for name in ["ΝΙΚΟ", "νικο", "bob", "Ann1"]:
        user = old_users.create(username=name)
        if name != "Ann1":  # made by the release before, after 0009 ran: no row
            old_names.create(user_id=user.pk, skeleton=name_skeleton(name))
    _migrate([("accounts", "0011_account_names_in_capitals_of_every_account")])
    from accounts.models import AccountName

    rows = {
        row.user.username: (row.skeleton, row.capitals, row.reads_as_older)
        for row in AccountName.objects.select_related("user")
    }
    assert rows == {
        "ΝΙΚΟ": ("nlko", "nlko", False),
        "νικο": ("vlko", "nlko", True),
        "bob": ("bob", "bob", False),
        "Ann1": ("annl", "annl", False),
    }
    assert [e.code for e in refused("Νικο")] in (["lookalike"], ["username_taken"])
    assert [e.code for e in refused("AnnI")] == ["lookalike"]


@pytest.mark.parametrize(("name", "skeleton"), PINNED_SKELETONS.items())
def test_a_names_stored_skeleton_stays_what_it_was(name: str, skeleton: str) -> None:
    assert name_skeleton(name) == skeleton


def test_a_dump_of_accounts_that_read_alike_loads_again(tmp_path: Any) -> None:
    """``dumpdata`` / ``loaddata`` (a backup, a copy to a staging site) of two accounts whose names
    read alike from before names were compared so: the later one's AccountName row, marked
    ``reads_as_older``, comes with the dump; the load writes it as it is, not a second unmarked
    skeleton that the unique constraint refuses."""
    from django.core.management import call_command

    from accounts.models import AccountName

    older = get_user_model().objects.create_user("Ann1", password=PASSWORD)
    later = get_user_model().objects.create_user("later", password=PASSWORD)
    get_user_model().objects.filter(pk=later.pk).update(username="Annl")  # as an older release made it
    AccountName.objects.filter(user=later).update(skeleton=name_skeleton("Annl"), reads_as_older=True)
    dump = tmp_path / "accounts.json"
    call_command("dumpdata", "auth.user", "accounts.accountname", output=str(dump), verbosity=0)
    AccountName.objects.all().delete()
    get_user_model().objects.all().delete()
    call_command("loaddata", str(dump), verbosity=0)
    assert sorted(AccountName.objects.values_list("user__username", "reads_as_older")) == [
        ("Ann1", False),
        ("Annl", True),
    ]
    assert older.pk in AccountName.objects.values_list("user", flat=True)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_after")
def test_the_migration_stores_anew_the_names_of_accounts_parted_by_a_letter_drawn_as_a_dot() -> None:
    """An account named with a letter drawn as a middle dot ("annꞏlee") was stored as another
    name than "ann.lee" beside it: both keep their names, the later marked as reading as the
    older; a name that reads as either is refused, and an account of such a letter alone keeps
    its row, stored anew."""
    apps = _migrate([("accounts", "0011_account_names_in_capitals_of_every_account")])
    old_users = apps.get_model("auth", "User").objects
    old_names = apps.get_model("accounts", "AccountName").objects
    stored_before = {"ann.lee": "annlee", "ann\ua78flee": "ann\ua78flee", "bo\u1427b": "bo\u1427b"}
    for name, skeleton in stored_before.items():
        user = old_users.create(username=name)
        old_names.create(user_id=user.pk, skeleton=skeleton, capitals=skeleton)
    _migrate([("accounts", "0012_account_names_parted_by_letters_drawn_as_dots")])
    from accounts.models import AccountName

    rows = {
        row.user.username: (row.skeleton, row.capitals, row.reads_as_older)
        for row in AccountName.objects.select_related("user")
    }
    assert rows == {
        "ann.lee": ("annlee", "annlee", False),
        "ann\ua78flee": ("annlee", "annlee", True),
        "bo\u1427b": ("bob", "bob", False),
    }
    assert [e.code for e in refused("Ann-Lee")] == ["lookalike"]
    assert [e.code for e in refused("B0b")] == ["lookalike"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_after")
def test_the_migration_gives_an_account_made_without_a_row_a_name_another_made_later_holds() -> None:
    """The release before made "Ann1" without a row while 0009 was deployed; "Annl", signed up
    after it on this release, was checked against the rows alone and holds the name. Both keep
    their names (the one without a row marked, as ``account_names_complete`` marks it), and the
    migration does not stop at the unique constraint."""
    apps = _migrate([("accounts", "0009_account_names_of_every_account")])
    old_users = apps.get_model("auth", "User").objects
    old_names = apps.get_model("accounts", "AccountName").objects
    old_users.create(username="Ann1")  # by the release before: no row
    later = old_users.create(username="Annl")
    old_names.create(user_id=later.pk, skeleton=name_skeleton("Annl"))
    _migrate([("accounts", "0011_account_names_in_capitals_of_every_account")])
    from accounts.models import AccountName

    rows = {row.user.username: (row.skeleton, row.reads_as_older) for row in AccountName.objects.select_related("user")}
    assert rows == {"Ann1": ("annl", True), "Annl": ("annl", False)}
    assert [e.code for e in refused("AnnI")] == ["lookalike"]
