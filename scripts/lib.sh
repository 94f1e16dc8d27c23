# Shared helpers for the scripts in this directory. Source it; do not run it.
# shellcheck shell=bash

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MINE_DEVIL_VENV:-$REPO_ROOT/.venv}"

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Run a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root to run '$*' (not root and no sudo); install the packages yourself"
    fi
}

# Print the first Python >= 3.11 found: $PYTHON, python3.11, python3.
find_python() {
    local candidate
    for candidate in ${PYTHON:-} python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

# Create $VENV if missing or broken, then install the project with the given extra
# (editable). A marker holding a hash of pyproject.toml skips pip when nothing changed.
ensure_venv() {
    local extra="$1" python marker want
    if ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        python="$(find_python)" || die "no Python >= 3.11 found (set PYTHON=/path/to/python3.11)"
        say "creating virtualenv $VENV with $python"
        rm -rf "$VENV"
        "$python" -m venv "$VENV" ||
            die "'$python -m venv' failed; on Debian run: apt-get install python3-venv"
    fi
    marker="$VENV/.mine-devil-installed-$extra"
    want="$(sha256sum "$REPO_ROOT/pyproject.toml" | cut -d' ' -f1)"
    if [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ] &&
        "$VENV/bin/python" -c 'import devil' 2>/dev/null; then
        say "virtualenv up to date ($extra)"
        return 0
    fi
    say "installing the project with the '$extra' extra into $VENV"
    local pip=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
    "${pip[@]}" --upgrade pip
    # The engine's compile (mypyc, then gcc: minutes on one core) and the install of the
    # requirements (unpacking and byte-compiling them) run side by side, one a core: the
    # project alone (--no-deps) in one pip, its requirements in another; they touch
    # different packages. The same packages as `pip install -e ".[$extra]"`, a minute sooner.
    local requirements="$VENV/.mine-devil-requirements-$extra" deps built=0
    requirements_of "$extra" >"$requirements"
    "${pip[@]}" -r "$requirements" &
    deps=$!
    "${pip[@]}" --no-deps -e "$REPO_ROOT" || built=$?
    wait "$deps" || die "installing the requirements of the '$extra' extra failed"
    [ "$built" -eq 0 ] || die "installing the project failed"
    printf '%s\n' "$want" >"$marker"
}

# The requirements of one extra of pyproject.toml, one a line, following the extra's
# references to the project's other extras (``mine-devil[web,play]``).
requirements_of() {
    "$VENV/bin/python" - "$REPO_ROOT/pyproject.toml" "$1" <<'EOF'
import re
import sys
import tomllib

with open(sys.argv[1], "rb") as file:
    project = tomllib.load(file)["project"]
extras = project.get("optional-dependencies", {})
itself = re.compile(re.escape(project["name"]) + r"\[([^]]*)\]")
found, seen, todo = list(project.get("dependencies", [])), set(), [sys.argv[2]]
while todo:
    extra = todo.pop()
    if extra in seen:
        continue
    seen.add(extra)
    for requirement in extras[extra]:
        named = itself.fullmatch(requirement.replace(" ", ""))
        if named:
            todo += named.group(1).split(",")
        elif requirement not in found:
            found.append(requirement)
print("\n".join(found))
EOF
}

# Map pytest's exit status to ours: 5 ("no tests collected") is a failure too.
fail_on_no_tests() {
    if [ "$1" -eq 5 ]; then
        say "pytest collected no tests: that is a failure"
        return 1
    fi
    return "$1"
}
