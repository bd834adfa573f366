#!/bin/sh
# Install forumbot as a systemd service, from this checkout:
#
#   sudo deploy/install.sh
#
# makes the system user `forumbot`, the folders (the program in /opt/forumbot, the settings
# in /etc/forumbot, the working directory /var/lib/forumbot), a venv with forumbot in it,
# a settings.ini to fill in (kept if there is one), and the systemd unit. It starts nothing.
#
# Each place can be changed: PREFIX, CONFDIR, STATEDIR, UNITDIR, BOTUSER. DESTDIR stages it
# all under another root (packaging, or a try without root: `DESTDIR=/tmp/root
# deploy/install.sh`); the user is then not made, and the venv's scripts name the staged
# path. PYTHON is the interpreter for the venv (3.11+); VENV_ARGS go to `python -m venv`;
# PACKAGE is what pip installs (this checkout with EXTRAS, postgres by default; or a built
# wheel); PIP_ARGS go to pip (for instance "--no-index --find-links /path/to/wheels" on a
# server without internet). A venv made --without-pip is filled by PYTHON's own pip.
#
#   deploy/install.sh --help       this text; changes nothing
#   deploy/install.sh --dry-run    prints each step it would take; changes nothing
#
# Exit codes: 0 installed (or --help, --dry-run), 1 a step failed, 2 an unknown argument or
# an unusable checkout or interpreter.
set -eu

usage() { sed -n '2,/^set -eu$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

DRY=no
for arg in "$@"; do
    case "$arg" in
        -h|--help) usage; exit 0 ;;
        -n|--dry-run) DRY=yes ;;
        *) printf '%s\n' "install.sh: unknown argument '$arg' (try --help); nothing was changed" >&2
           exit 2 ;;
    esac
done

PREFIX=${PREFIX:-/opt/forumbot}
CONFDIR=${CONFDIR:-/etc/forumbot}
STATEDIR=${STATEDIR:-/var/lib/forumbot}
UNITDIR=${UNITDIR:-/etc/systemd/system}
BOTUSER=${BOTUSER:-forumbot}
PYTHON=${PYTHON:-python3}
PIP_ARGS=${PIP_ARGS:-}
VENV_ARGS=${VENV_ARGS:-}
EXTRAS=${EXTRAS:-postgres}
DESTDIR=${DESTDIR:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
PACKAGE=${PACKAGE:-$SRC[$EXTRAS]}

say() { [ "$DRY" = yes ] || printf '%s\n' "install.sh: $*"; }
fail() { printf '%s\n' "install.sh: $*" >&2; exit 1; }
unusable() { printf '%s\n' "install.sh: $*" >&2; exit 2; }
# do CMD...: runs CMD, or with --dry-run only prints it
do_() {
    if [ "$DRY" = yes ]; then printf '%s\n' "would run: $*"; else "$@"; fi
}
# write FILE: stdin into FILE, or with --dry-run only says so
write() {
    if [ "$DRY" = yes ]; then cat >/dev/null; printf '%s\n' "would write: $1"; else cat > "$1"; fi
}

[ -f "$SRC/pyproject.toml" ] && [ -f "$SRC/deploy/forumbot.service" ] || unusable "run me from a forumbot checkout"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
    || unusable "$PYTHON is missing or older than 3.11 (set PYTHON=...)"
[ "$DRY" = no ] || printf '%s\n' "install.sh: a dry run: these are the steps; nothing is changed"

root=no
[ "$(id -u)" = 0 ] && [ -z "$DESTDIR" ] && root=yes

# 1. the user
if [ "$root" = yes ]; then
    if id "$BOTUSER" >/dev/null 2>&1; then
        say "user $BOTUSER exists"
    else
        do_ useradd --system --user-group --home-dir "$STATEDIR" --shell /usr/sbin/nologin "$BOTUSER"
        say "made the system user $BOTUSER"
    fi
else
    say "not making the user $BOTUSER (not root, or DESTDIR is set)"
fi

# 2. the folders
do_ install -d -m 0755 "$DESTDIR$PREFIX" "$DESTDIR$UNITDIR"
do_ install -d -m 0750 "$DESTDIR$CONFDIR" "$DESTDIR$STATEDIR"
if [ "$root" = yes ]; then
    do_ chown "root:$BOTUSER" "$DESTDIR$CONFDIR"
    do_ chown "$BOTUSER:$BOTUSER" "$DESTDIR$STATEDIR"
fi

# 3. the venv, with forumbot in it
venv="$DESTDIR$PREFIX/.venv"
if [ ! -x "$venv/bin/python" ]; then
    # shellcheck disable=SC2086  # VENV_ARGS are words
    do_ "$PYTHON" -m venv $VENV_ARGS "$venv"
fi
if "$venv/bin/python" -c 'import pip' 2>/dev/null; then
    pip="$venv/bin/python -m pip"
else
    pip="$PYTHON -m pip --python $venv/bin/python"
fi
# shellcheck disable=SC2086  # PIP_ARGS are words
do_ $pip install --quiet --disable-pip-version-check $PIP_ARGS "$PACKAGE"
[ "$DRY" = yes ] || [ -x "$venv/bin/forumbot" ] || fail "pip did not install the forumbot command into $venv"
say "installed forumbot into $PREFIX/.venv"

# 4. the settings (an existing file is kept)
settings="$DESTDIR$CONFDIR/settings.ini"
if [ -e "$settings" ]; then
    say "kept $CONFDIR/settings.ini"
else
    sed -e "s|^url = sqlite:///forumbot.db|url = sqlite:///$STATEDIR/forumbot.db|" \
        -e "s|^path = forumbot-local.db|path = $STATEDIR/forumbot-local.db|" \
        "$SRC/settings.example.ini" | write "$settings"
    do_ chmod 0640 "$settings"
    [ "$root" = yes ] && do_ chown "root:$BOTUSER" "$settings"
    say "wrote $CONFDIR/settings.ini: fill in [reddit] (and [database] for PostgreSQL)"
fi

# 5. the unit, with these places in it
sed -e "s|/opt/forumbot|$PREFIX|g" -e "s|/etc/forumbot|$CONFDIR|g" \
    -e "s|/var/lib/forumbot|$STATEDIR|g" -e "s|^User=forumbot|User=$BOTUSER|" \
    -e "s|^Group=forumbot|Group=$BOTUSER|" \
    "$SRC/deploy/forumbot.service" | write "$DESTDIR$UNITDIR/forumbot.service"
do_ chmod 0644 "$DESTDIR$UNITDIR/forumbot.service"
say "installed the unit $UNITDIR/forumbot.service"
if [ "$root" = yes ] && command -v systemctl >/dev/null 2>&1; then
    do_ systemctl daemon-reload || true
fi

[ "$DRY" = yes ] && exit 0
cat <<NEXT
Next:
  1. fill in $CONFDIR/settings.ini
  2. sudo -u $BOTUSER env FORUMBOT_SETTINGS=$CONFDIR/settings.ini $PREFIX/.venv/bin/forumbot doctor
  3. sudo systemctl enable --now forumbot
  4. journalctl -u forumbot -f
NEXT
