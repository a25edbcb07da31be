#!/usr/bin/env bash
# `npm run test:setup`: installs, on Debian (or Ubuntu), what the test suite needs besides Node.js and npm's
# packages, and only what is missing: when everything is there it installs nothing and takes a second.
# .ci/run calls it before `npm ci` and `npm test`.
#
#   postgresql     initdb and pg_ctl: the throwaway cluster of the PostgreSQL pass (scripts/postgres.mjs)
#   redis-server   the shared rate limit and the two-instance suites
#   nginx, openssl the deployment guide's example with a throwaway certificate (test/deploy.test.ts)
#   chromium       the client hub in a real browser (test/hub-browser.test.ts); nothing downloads a browser
#   mypy, python3-venv, python3-wheel, python3-setuptools, python3-pip
#                  the Python SDK's tests: mypy --strict and an offline wheel build into a virtual environment
#   sqlite3        Debian's sqlite3 shell (3.40): test/sqlite-shell.test.ts opens a migrated database with it
#   curl, jq       the README's and the guide's shell examples, run as written (test/docs-examples.test.ts)
#   poppler-utils  pdftotext, pdfimages, pdftoppm: PDFs read back by the document suites and the sample render
set -euo pipefail

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "Node.js 20 or later is needed (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

missing=()
has() { command -v "$1" >/dev/null 2>&1; }
pg_binary() { has "$1" || compgen -G "/usr/lib/postgresql/*/bin/$1" >/dev/null; }
{ pg_binary initdb && pg_binary pg_ctl; } || missing+=(postgresql)
has redis-server || missing+=(redis-server)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
has openssl || missing+=(openssl)
[ -x /usr/bin/chromium ] || missing+=(chromium)
has mypy || missing+=(mypy)
/usr/bin/python3 -c 'import wheel, setuptools, pip' >/dev/null 2>&1 || missing+=(python3-wheel python3-setuptools python3-pip)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
[ -x /usr/bin/sqlite3 ] || missing+=(sqlite3)
has curl || missing+=(curl)
has jq || missing+=(jq)
{ has pdftotext && has pdfimages && has pdftoppm; } || missing+=(poppler-utils)

if [ ${#missing[@]} -eq 0 ]; then
  echo "test:setup: everything the tests need is installed"
  exit 0
fi
if ! has apt-get; then
  echo "test:setup: missing ${missing[*]}, and there is no apt-get here: install their equivalents" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if has sudo; then sudo=(sudo); else
    echo "test:setup: missing ${missing[*]}: run this as root (or install sudo)" >&2
    exit 1
  fi
fi
echo "test:setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "test:setup: installed ${missing[*]}"
