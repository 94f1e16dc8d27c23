"""bench/bench_world_hostile.py still fits the app: it imports, parses its arguments, and seeds
the world the way the server's schema wants it (its seeding broke unnoticed when the log was
numbered per team). A real run takes ~20 s of server start and attack (too slow for CI):
``bench/bench_world_hostile.py --scale small --attacks who --seconds 2``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from app.world.schema import events, players, teams
from app.world.store import WorldStore

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

import bench_world_hostile as hostile  # noqa: E402


def test_an_unknown_attack_is_refused_before_any_server_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        hostile.main(["--attacks", "who,nope"])
    assert stopped.value.code == 2
    assert "unknown attacks ['nope']" in capsys.readouterr().err


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_seeding_fits_the_schema(store: WorldStore, db_url: str) -> None:
    store.add_player(hostile.WORLD, "bystander", "bystanders", 0)
    hostile.seed_teams(db_url, 3)
    hostile.seed_log(db_url, 5)
    with store.reading() as conn:
        names = set(conn.execute(sa.select(teams.c.name)).scalars())
        seqs = list(
            conn.execute(
                sa.select(events.c.seq).where(events.c.team == "bystanders").order_by(events.c.seq)
            ).scalars()
        )
        n_players = conn.execute(sa.select(sa.func.count()).select_from(players)).scalar_one()
    assert names == {"bystanders", "seed0", "seed1", "seed2"}
    assert n_players == 4
    assert seqs == [1, 2, 3, 4, 5]  # numbered from the team's head, gapless
    assert store.team_head(hostile.WORLD, "bystanders") == 5
