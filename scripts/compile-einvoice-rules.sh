#!/bin/sh
# Compiles CEN's vendored EN 16931 validation XSLT (UBL and CII) to SaxonJS's SEF form, which
# src/mail/einvoice-validation.ts runs. The SEF files are committed: run this only when the vendored XSLT
# changes (a new validation release), then commit the results.
set -e
cd "$(dirname "$0")/../vendor/en16931-validation-1.3.15"
for syntax in ubl cii; do
  upper=$(echo "$syntax" | tr a-z A-Z)
  npx xslt3 -relocate:on -xsl:"$syntax/xslt/EN16931-$upper-validation.xslt" \
    -export:"$syntax/xslt/EN16931-$upper-validation.sef.json" -nogo
done
