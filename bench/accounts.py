"""How fast the profile and leaderboard pages are with a big history: prints each page's server time.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python -m bench.accounts

makes a scratch database on that server (dropped afterwards), seeds it with 100,000
finished two-player games over 1,000 accounts (bulk inserts: games, seats, records and
standings as counting them would leave them; see ``seed``), then asks each page through
Django's test client and prints the median and worst of its server time, with its number
of queries. Target: under 50 ms a page. ``--games`` and ``--accounts`` change the sizes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

PASSWORD_HASH = "md5$bench$0123456789abcdef0123456789abcdef"  # nobody signs in to these


def seed(*, accounts: int, games: int, rng: random.Random, batch: int = 5000) -> list[str]:
    """Bulk-insert ``accounts`` users and ``games`` finished two-player games between them; returns the usernames."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import CountedGame, GameRecord, Profile, Standing
    from games.store.models import Game, Player

    user_model = get_user_model()
    prefix = f"b{rng.randrange(10**6)}"
    with transaction.atomic():
        users = user_model.objects.bulk_create(
            [user_model(username=f"{prefix}p{i}", password=PASSWORD_HASH) for i in range(accounts)], batch_size=batch
        )
        if not all(u.pk for u in users):  # SQLite before 3.35 returns no ids
            users = list(user_model.objects.filter(username__startswith=f"{prefix}p").order_by("pk"))
        Profile.objects.bulk_create(
            [Profile(user=u, controller=f"{prefix}c{u.pk}", public=i % 10 != 0) for i, u in enumerate(users)],
            batch_size=batch,
        )
    now = timezone.now()
    totals: dict[tuple[int, str], dict[str, Any]] = {}
    # A skill per account, so that ratings and ranks look like a real site's (the rating
    # itself is the service's business, tested there; here it only has to be stored).
    skill = {u.pk: rng.gauss(0, 1) for u in users}
    rulesets = ["official", "official", "official", "yatzy", "painted"]
    done = 0
    while done < games:
        n = min(batch, games - done)
        with transaction.atomic():
            chunk = [
                Game(
                    code=f"{prefix}g{done + i}",
                    ruleset=rng.choice(rulesets),
                    status=Game.Status.FINISHED,
                    private=True,
                    server_seed="0" * 64,
                    seed_commitment="0" * 64,
                    finished_at=now - timedelta(minutes=done + i),
                    snapshot={},
                )
                for i in range(n)
            ]
            chunk = Game.objects.bulk_create(chunk, batch_size=batch)
            pairs = [rng.sample(users, 2) for _ in chunk]
            players = [
                Player(game=g, seat=s, name=u.username[:24], controller=f"{prefix}c{u.pk}", user=u)
                for g, pair in zip(chunk, pairs, strict=True)
                for s, u in enumerate(pair)
            ]
            players = Player.objects.bulk_create(players, batch_size=batch)
            records = []
            for index, g in enumerate(chunk):
                scores = [int(min(375, max(60, rng.gauss(230 + 15 * skill[u.pk], 45)))) for u in pairs[index]]
                exact = g.ruleset != "painted"
                for s in range(2):
                    rank = 1 + sum(1 for other in scores if other > scores[s])
                    records.append(
                        GameRecord(
                            game=g,
                            player=players[2 * index + s],
                            user=pairs[index][s],
                            ruleset=g.ruleset,
                            finished_at=g.finished_at,
                            players=2,
                            rank=rank,
                            score=scores[s],
                            upper_bonus=rng.random() < 0.6,
                            yahtzee=rng.random() < 0.3,
                            lost=round(rng.uniform(5, 60), 1) if exact else None,
                        )
                    )
            GameRecord.objects.bulk_create(records, batch_size=batch)
            CountedGame.objects.bulk_create([CountedGame(game=g, rated=True) for g in chunk], batch_size=batch)
        for r in records:
            t = totals.setdefault(
                (r.user.pk, r.ruleset),
                {"games": 0, "wins": 0, "sum": 0, "best": 0, "b": 0, "y": 0, "n": 0, "lost": 0.0},
            )
            t["games"] += 1
            t["wins"] += r.rank == 1
            t["sum"] += r.score
            t["best"] = max(t["best"], r.score)
            t["b"] += r.upper_bonus
            t["y"] += r.yahtzee
            if r.lost is not None:
                t["n"] += 1
                t["lost"] += r.lost
        done += n
    Standing.objects.bulk_create(
        [
            Standing(
                user_id=u,
                ruleset=rs,
                games=t["games"],
                wins=t["wins"],
                score_sum=t["sum"],
                best=t["best"],
                bonuses=t["b"],
                yahtzees=t["y"],
                reviewed=t["n"],
                lost_sum=t["lost"],
                accuracy=t["lost"] / t["n"] if t["n"] else None,
                mu=25 + 4 * skill[u],
                sigma=1.0 + 6 / (1 + t["games"]),
                ordinal=25 + 4 * skill[u] - 3 * (1.0 + 6 / (1 + t["games"])),
                rated=t["games"],
            )
            for (u, rs), t in totals.items()
        ],
        batch_size=batch,
    )
    return [u.username for u in users]


def timed(client: Any, url: str, repeat: int) -> tuple[float, float, float, float, int]:
    """Median and worst wall time, median CPU time of this process and median database time, in ms."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm
    wall, cpu, db = [], [], []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        db.append(sum(float(q["time"]) for q in queries.captured_queries) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(wall), max(wall), statistics.median(cpu), statistics.median(db), len(queries)


@contextlib.contextmanager
def kept_database(url: str, name: str) -> Iterator[str]:
    """The database ``name`` on ``url``'s server, made and migrated if missing, never dropped."""
    import urllib.parse

    import psycopg

    from tests.live import manage, server_env

    parsed = urllib.parse.urlparse(url)
    with psycopg.connect(parsed._replace(path="/postgres").geturl(), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    kept = parsed._replace(path=f"/{name}").geturl()
    manage("migrate", "--noinput", env=server_env(DATABASE_URL=kept))
    yield kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--keep", metavar="NAME", help="seed (once) and keep the database NAME instead of a scratch one dropped after"
    )
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit("Set DATABASE_URL to a PostgreSQL server (a scratch database is made there).")
    sys.path.insert(0, os.getcwd())
    from tests.live import scratch_database

    with kept_database(url, args.keep) if args.keep else scratch_database(url) as scratch:
        os.environ["DATABASE_URL"] = scratch
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yahtzee.settings")
        os.environ["RATE_LIMITS"] = "0"
        # A fresh clone has no key file (python -m yahtzee.prepare makes it): the bench signs
        # nothing that outlives it.
        os.environ.setdefault("SECRET_KEY", "bench-accounts-" + "x" * 40)
        import django

        django.setup()
        from django.conf import settings
        from django.db import connection
        from django.test import Client

        settings.ALLOWED_HOSTS = ["*"]
        from django.contrib.auth import get_user_model

        names = list(get_user_model().objects.order_by("pk").values_list("username", flat=True)[:2])
        if not names:
            start = time.perf_counter()
            names = seed(accounts=args.accounts, games=args.games, rng=random.Random(16))
            print(f"seeded {args.games} games over {args.accounts} accounts in {time.perf_counter() - start:.1f} s")
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        client = Client()
        pages = [
            ("profile, page 1", f"/u/{names[1]}/"),
            ("profile, page 5", f"/u/{names[1]}/?page=5"),
            ("profile, last page", f"/u/{names[1]}/?page=9999"),
            ("leaderboard official", "/leaderboards/official"),
            ("leaderboard painted", "/leaderboards/painted"),
        ]
        # Wall time is what a visitor waits for; on a busy machine the CPU time of this process
        # and the database's time say what the page itself costs.
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"{'page':24} {'median ms':>10} {'worst ms':>9} {'cpu ms':>7} {'db ms':>6} {'queries':>8}")
        for label, page in pages:
            median, worst, cpu, db, queries = timed(client, page, args.repeat)
            print(f"{label:24} {median:10.1f} {worst:9.1f} {cpu:7.1f} {db:6.1f} {queries:8d}")
        connection.close()


if __name__ == "__main__":
    main()
