"""The cache holds data, never code that runs unverified: a tampered compiled template or module
never runs its payload, a damaged entry is made again with a warning, a cache others can write
is refused, and a killed build leaves nothing a later run trips on."""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import textwrap
import warnings

import pytest
from support import ROBOTS

import symdyn
from symdyn.emit import cache, staging
from symdyn.emit.build import DIGEST
from symdyn.emit.cache import CacheWarning

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
PLANAR = ROBOTS / "planar2.yaml"


def _fresh_python(code: str, env: dict) -> subprocess.CompletedProcess:
    """``code`` run in a new interpreter (the template and module caches are per process)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=600)


GENERATE = """
    import symdyn
    d = symdyn.newton_euler(symdyn.load_robot({robot!r}))
    symdyn.generate(d, "python", {out!r}, quantities=["gravity_torques"])
    print("generated")
"""


def test_a_tampered_template_cache_never_runs(tmp_path):
    """A compiled template replaced by one whose code writes a file: the digest recorded with it
    does not match, so it is compiled again, with a warning, and the payload never runs."""
    env = {"SYMDYN_CACHE": str(tmp_path / "cache")}
    first = _fresh_python(GENERATE.format(robot=str(PLANAR), out=str(tmp_path / "a")), env)
    assert first.returncode == 0, first.stderr
    entries = sorted((tmp_path / "cache" / "templates").glob("*.sealed"))
    assert entries
    assert oct((tmp_path / "cache").stat().st_mode & 0o777) == "0o700"
    marker = tmp_path / "pwned"
    payload = compile(f"open({str(marker)!r}, 'w').close()", "<payload>", "exec")
    import marshal

    from jinja2.bccache import bc_magic
    for entry in entries:
        blob = entry.read_bytes()
        key_checksum = blob[blob.index(b"\n") + 1:][len(bc_magic):]
        import pickle
        checksum = pickle.loads(key_checksum)       # the template source's checksum, kept
        evil = bc_magic + pickle.dumps(checksum, 2) + marshal.dumps(payload)
        header = blob[:blob.index(b"\n") + 1]
        entry.write_bytes(header + evil)            # the recorded digest kept: a mismatch
    second = _fresh_python(GENERATE.format(robot=str(PLANAR), out=str(tmp_path / "b")), env)
    assert second.returncode == 0, second.stderr
    assert not marker.exists()
    assert "does not match the digest" in second.stderr
    assert (tmp_path / "a" / "planar2.py").read_bytes() == (tmp_path / "b" / "planar2.py"
                                                            ).read_bytes()
    third = _fresh_python(GENERATE.format(robot=str(PLANAR), out=str(tmp_path / "c")), env)
    assert "does not match" not in third.stderr     # written again, sealed


def test_a_sealed_entry_is_read_back_only_as_written(tmp_path):
    sealed = cache.seal(b"payload")
    assert cache.unseal(sealed) == b"payload"
    for damaged in (sealed[:-1], sealed + b"x", sealed.replace(b"payload", b"paylaod"), b"",
                    sealed[:40], b"x" + sealed[1:]):
        assert cache.unseal(damaged) is None
    path = tmp_path / "entry"
    cache.write_atomic(path, sealed)
    assert cache.read_bytes(path) == sealed
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(cache.STAGING)]
    os.symlink(path, tmp_path / "link")
    with pytest.warns(CacheWarning):
        assert cache.read_bytes(tmp_path / "link") is None      # never followed
    path.chmod(0o666)
    with pytest.warns(CacheWarning, match="private regular file"):
        assert cache.read_bytes(path) is None


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() == 0,
                    reason="root owns every folder it makes; ownership is tested by mode")
def test_a_cache_owned_by_another_user_is_refused(tmp_path):
    assert cache.unsafe(tmp_path) is None
    assert "owned by user 0" in cache.unsafe(type(tmp_path)("/"))


def test_a_cache_others_can_write_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o700)
    assert cache.unsafe(shared) is None
    shared.chmod(0o775)
    assert "writable by group or others (mode 0775" in cache.unsafe(shared)
    with pytest.warns(CacheWarning, match="not used: it is writable by group or others"):
        assert cache.open_folder(shared) is None
    inner = tmp_path / "open" / "cache"
    inner.parent.mkdir(mode=0o777)
    inner.parent.chmod(0o777)                   # above it, writable by all, no sticky bit
    inner.mkdir(mode=0o700)
    assert "folder above it" in cache.unsafe(inner)
    inner.parent.chmod(0o1777)                  # as /tmp: others' files kept apart
    assert cache.unsafe(inner) is None
    made = tmp_path / "new" / "deep"
    assert cache.open_folder(made) == made
    assert oct(made.stat().st_mode & 0o777) == "0o700"
    assert oct(made.parent.stat().st_mode & 0o777) == "0o700"
    (tmp_path / "file").write_text("")
    with pytest.warns(CacheWarning, match="not a folder"):
        assert cache.open_folder(tmp_path / "file") is None


def test_the_command_says_why_a_cache_is_refused_in_one_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from symdyn.cli import main
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("SYMDYN_CACHE", str(shared))
    render = importlib.import_module("symdyn.emit.render")     # a new environment: it looks
    monkeypatch.setattr(render, "_backend_environment",        # at the cache again
                        render._backend_environment.__wrapped__)
    result = CliRunner().invoke(main, ["generate", str(PLANAR), "-Q", "gravity_torques",
                                       "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "cache" in line]
    assert lines and all(line.startswith("warning: cache ") for line in lines)
    assert "writable by group or others" in lines[0]
    assert list(shared.iterdir()) == []           # nothing written into it


@needs_gcc
def test_a_tampered_module_never_runs(tmp_path):
    """The cached module replaced by a shared object whose initialiser writes a file: it does
    not match the digest recorded with the module, so it is built again and never loaded."""
    run = """
        import symdyn
        m = symdyn.compile({robot!r}, quantities=["gravity_torques"])
        print(m.__file__)
        print(m.gravity_torques([0.1, 0.2], [1, 1, 1, 1, 9.81]))
    """.format(robot=str(PLANAR))
    env = {"SYMDYN_CACHE": str(tmp_path / "cache")}
    first = _fresh_python(run, env)
    assert first.returncode == 0, first.stderr
    module = tmp_path / first.stdout.splitlines()[0]
    assert (module.parent / DIGEST).exists()
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.c"
    evil.write_text(f'#include <stdio.h>\n__attribute__((constructor)) static void payload(void)'
                    f'{{ fclose(fopen("{marker}", "w")); }}\n')
    subprocess.run(["gcc", "-shared", "-fPIC", str(evil), "-o", str(module)], check=True)
    second = _fresh_python(run, env)
    assert second.returncode == 0, second.stderr
    assert not marker.exists()
    assert "does not match the digest" in second.stderr and "built again" in second.stderr
    assert second.stdout == first.stdout
    module.write_bytes(module.read_bytes()[:1000])             # truncated: built again too
    third = _fresh_python(run, env)
    assert third.returncode == 0 and third.stdout == first.stdout, third.stderr
    fourth = _fresh_python(run, env)
    assert fourth.returncode == 0 and "does not match" not in fourth.stderr


@needs_gcc
def test_an_unsafe_cache_still_builds_without_keeping_anything(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.warns(CacheWarning, match="working without it"):
        module = symdyn.compile(PLANAR, quantities=["gravity_torques"], cache=shared)
    assert module.gravity_torques([0.1, 0.2], [1, 1, 1, 1, 9.81]).shape == (2,)
    assert list(shared.iterdir()) == []
    assert not os.path.exists(module.__file__)       # built in a private folder, removed


@needs_gcc
def test_a_killed_build_leaves_nothing_a_later_run_trips_on(tmp_path):
    """A build killed while compiling leaves its staging folder; the next build removes it (its
    process is gone) and builds as usual. Another live process's staging folder is left."""
    root = tmp_path / "cache"
    script = f"""
        import os, symdyn.emit.build as b
        real = b._run
        def killed(command):
            real(command)
            os.kill(os.getpid(), 9)
        b._run = killed
        import symdyn
        symdyn.compile({str(PLANAR)!r}, quantities=["gravity_torques"], cache={str(root)!r})
    """
    killed = _fresh_python(script, {})
    assert killed.returncode == -9
    leftovers = [p for p in root.iterdir() if p.name.startswith(cache.STAGING)]
    assert len(leftovers) == 1 and any(leftovers[0].iterdir())
    live = root / f"{cache.STAGING}{staging._host()}-{os.getpid()}-abc"
    live.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        module = symdyn.compile(PLANAR, quantities=["gravity_torques"], cache=root)
    assert module.gravity_torques([0.1, 0.2], [1, 1, 1, 1, 9.81]).shape == (2,)
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(cache.STAGING)) == [
        live.name]
    entries = [p for p in root.iterdir() if not p.name.startswith(".")]
    assert len(entries) == 1 and sorted(p.name for p in entries[0].iterdir()) == sorted(
        [DIGEST, os.path.basename(module.__file__)])


@needs_gcc
def test_a_fifo_in_place_of_an_entry_is_made_again_not_waited_on(tmp_path):
    """Another program (or user) put a FIFO where the module or its digest goes: compile warns,
    builds again beside it and returns at once, instead of blocking on the FIFO's open."""
    root = tmp_path / "cache"
    first = symdyn.compile(PLANAR, quantities=["gravity_torques"], cache=root)
    entry = os.path.dirname(first.__file__)
    for name in (DIGEST, os.path.basename(first.__file__)):
        target = os.path.join(entry, name)
        os.remove(target)
        os.mkfifo(target)
        code = f"""
            import symdyn
            m = symdyn.compile({str(PLANAR)!r}, quantities=["gravity_torques"],
                               cache={str(root)!r})
            print(m.gravity_torques([0.1, 0.2], [1, 1, 1, 1, 9.81]))
        """
        result = _fresh_python(code, {})        # (a blocked open would time out the test)
        assert result.returncode == 0, result.stderr
        assert "not a private regular file" in result.stderr
        shutil.rmtree(root)
        first = symdyn.compile(PLANAR, quantities=["gravity_torques"], cache=root)
        entry = os.path.dirname(first.__file__)
