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
set -eu

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

say() { printf '%s\n' "install.sh: $*"; }
fail() { printf '%s\n' "install.sh: $*" >&2; exit 1; }

[ -f "$SRC/pyproject.toml" ] && [ -f "$SRC/deploy/forumbot.service" ] || fail "run me from a forumbot checkout"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
    || fail "$PYTHON is missing or older than 3.11 (set PYTHON=...)"

root=no
[ "$(id -u)" = 0 ] && [ -z "$DESTDIR" ] && root=yes

# 1. the user
if [ "$root" = yes ]; then
    if id "$BOTUSER" >/dev/null 2>&1; then
        say "user $BOTUSER exists"
    else
        useradd --system --user-group --home-dir "$STATEDIR" --shell /usr/sbin/nologin "$BOTUSER"
        say "made the system user $BOTUSER"
    fi
else
    say "not making the user $BOTUSER (not root, or DESTDIR is set)"
fi

# 2. the folders
install -d -m 0755 "$DESTDIR$PREFIX" "$DESTDIR$UNITDIR"
install -d -m 0750 "$DESTDIR$CONFDIR" "$DESTDIR$STATEDIR"
if [ "$root" = yes ]; then
    chown "root:$BOTUSER" "$DESTDIR$CONFDIR"
    chown "$BOTUSER:$BOTUSER" "$DESTDIR$STATEDIR"
fi

# 3. the venv, with forumbot in it
venv="$DESTDIR$PREFIX/.venv"
if [ ! -x "$venv/bin/python" ]; then
    # shellcheck disable=SC2086  # VENV_ARGS are words
    "$PYTHON" -m venv $VENV_ARGS "$venv"
fi
if "$venv/bin/python" -c 'import pip' 2>/dev/null; then
    pip="$venv/bin/python -m pip"
else
    pip="$PYTHON -m pip --python $venv/bin/python"
fi
# shellcheck disable=SC2086  # PIP_ARGS are words
$pip install --quiet --disable-pip-version-check $PIP_ARGS "$PACKAGE"
[ -x "$venv/bin/forumbot" ] || fail "pip did not install the forumbot command into $venv"
say "installed forumbot into $PREFIX/.venv"

# 4. the settings (an existing file is kept)
settings="$DESTDIR$CONFDIR/settings.ini"
if [ -e "$settings" ]; then
    say "kept $CONFDIR/settings.ini"
else
    sed -e "s|^url = sqlite:///forumbot.db|url = sqlite:///$STATEDIR/forumbot.db|" \
        -e "s|^path = forumbot-local.db|path = $STATEDIR/forumbot-local.db|" \
        "$SRC/settings.example.ini" > "$settings"
    chmod 0640 "$settings"
    [ "$root" = yes ] && chown "root:$BOTUSER" "$settings"
    say "wrote $CONFDIR/settings.ini: fill in [reddit] (and [database] for PostgreSQL)"
fi

# 5. the unit, with these places in it
sed -e "s|/opt/forumbot|$PREFIX|g" -e "s|/etc/forumbot|$CONFDIR|g" \
    -e "s|/var/lib/forumbot|$STATEDIR|g" -e "s|^User=forumbot|User=$BOTUSER|" \
    -e "s|^Group=forumbot|Group=$BOTUSER|" \
    "$SRC/deploy/forumbot.service" > "$DESTDIR$UNITDIR/forumbot.service"
chmod 0644 "$DESTDIR$UNITDIR/forumbot.service"
say "installed the unit $UNITDIR/forumbot.service"
if [ "$root" = yes ] && command -v systemctl >/dev/null 2>&1; then
    systemctl daemon-reload || true
fi

cat <<NEXT
Next:
  1. fill in $CONFDIR/settings.ini
  2. sudo -u $BOTUSER env FORUMBOT_SETTINGS=$CONFDIR/settings.ini $PREFIX/.venv/bin/forumbot doctor
  3. sudo systemctl enable --now forumbot
  4. journalctl -u forumbot -f
NEXT
