#!/usr/bin/env bash
# The official OASIS XLIFF schemas, for the tests that validate the annotated inputs
# (tests/test_cat_roundtrip.py): XLIFF 1.2 strict (xliff-core-1.2-strict.xsd), XLIFF 2.0 core
# (xliff-core-2.0.xsd) and the W3C xml.xsd they import, as Debian's php-symfony-translation
# package ships them (Symfony's translation component validates XLIFF with them). The package
# is only downloaded and unpacked, never installed (it would bring PHP along).
#
# Usage: bash tools/xliff_schemas.sh [FOLDER]   (default .cache/xliff-schemas; prints FOLDER)
set -euo pipefail
dest="${1:-.cache/xliff-schemas}"
if [ -f "$dest/xliff-core-1.2-strict.xsd" ] && [ -f "$dest/xliff-core-2.0.xsd" ]; then
    echo "$dest"
    exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(
    cd "$work"
    apt-get download php-symfony-translation >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null && apt-get download php-symfony-translation >/dev/null 2>&1; }
)
dpkg-deb -x "$work"/php-symfony-translation_*.deb "$work/unpacked"
mkdir -p "$dest"
cp "$work"/unpacked/usr/share/php/Symfony/Component/Translation/Resources/schemas/*.xsd "$dest/"
echo "$dest"
