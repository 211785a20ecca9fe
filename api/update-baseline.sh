#!/usr/bin/env bash
# Makes this checkout's library jars the baseline the API check compares with (docs/api.md).
#
#   api/update-baseline.sh VERSION
#
# Run it for a release (VERSION = that release, e.g. 0.2.0) or to accept an intended break, then
# set <nrt.api.baseline>VERSION</nrt.api.baseline> in the root pom.xml and commit both. It builds
# with the reactor only (mvn package, nothing is installed) and writes api/baseline/VERSION/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VERSION="${1:?usage: api/update-baseline.sh VERSION (e.g. 0.1.0)}"
MODULES=(common transport primary replica election node objectstore)

JAVA_HOME="$(bash bin/nrt jdk)"
export JAVA_HOME
modules_csv="$(IFS=,; echo "${MODULES[*]}")"
# A fixed timestamp: rebuilding an unchanged module gives the same bytes, so git shows only real changes.
mvn -B -q package -DskipTests -Dnrt.api.skip=true -Dproject.build.outputTimestamp=2026-01-01T00:00:00Z -pl "$modules_csv" -am

out="api/baseline/$VERSION"
rm -rf "$out"
mkdir -p "$out"
for m in "${MODULES[@]}"; do
  jar=""
  for candidate in "$m"/target/nrtcluster-"$m"-*.jar; do
    case "$candidate" in
      *-tests.jar | *-javadoc.jar | *-sources.jar) ;;
      *) jar="$candidate" ;;
    esac
  done
  [[ -n "$jar" ]] || { echo "update-baseline: no jar built for $m" >&2; exit 1; }
  cp "$jar" "$out/nrtcluster-$m-$VERSION.jar"
done
echo "Baseline $VERSION written to $out. Set <nrt.api.baseline>$VERSION</nrt.api.baseline> in pom.xml and commit both."
