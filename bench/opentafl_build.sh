#!/bin/bash
# Build OpenTafl (github.com/jslater89/OpenTafl, tested at v0.4.8.0b, commit 6895051d) with
# javac alone, offline, for bench/otep_opentafl.py and tests/bridge/test_bridge_opentafl.py.
#
#   bench/opentafl_build.sh OPENTAFL_SOURCE_DIR OUT_DIR
#   export OPENTAFL_CLASSPATH=$(cat OUT_DIR/classpath.txt)
#
# Its Gradle build downloads ini4j, jline 2 and javax.json; here ini4j and jline 2 come from
# Debian (apt-get install libini4j-java libjline2-java), lanterna from OpenTafl's own lib/,
# and the one class that needs javax.json (the PlayTaflOnline.com JSON importer, unused by
# the engine, the host and the server) is replaced by a stub that refuses. Nothing of
# OpenTafl is kept in this repository: docs/bridge.md, "Tested with OpenTafl".
set -euo pipefail
SRC=$(cd "${1:?OpenTafl source folder}" && pwd)
OUT=$(mkdir -p "${2:?output folder}" && cd "$2" && pwd)
for jar in /usr/share/java/ini4j.jar /usr/share/java/jline2.jar "$SRC/lib/lanterna.jar"; do
    [ -f "$jar" ] || { echo "missing $jar (apt-get install libini4j-java libjline2-java)" >&2; exit 1; }
done
rm -rf "$OUT/src" "$OUT/classes"
mkdir -p "$OUT/src" "$OUT/classes"
cp -r "$SRC/src/." "$OUT/src/"
cat > "$OUT/src/com/manywords/softworks/tafl/notation/playtaflonline/PlayTaflOnlineJsonTranslator.java" <<'JAVA'
package com.manywords.softworks.tafl.notation.playtaflonline;

import com.manywords.softworks.tafl.engine.Game;
import java.io.File;
import java.io.InputStream;

public class PlayTaflOnlineJsonTranslator {
    public static Game readJsonFile(File f) {
        throw new UnsupportedOperationException("built without javax.json");
    }

    public static Game readJsonInputStream(InputStream s) {
        throw new UnsupportedOperationException("built without javax.json");
    }
}
JAVA
CP="$SRC/lib/lanterna.jar:/usr/share/java/ini4j.jar:/usr/share/java/jline2.jar"
find "$OUT/src" -name '*.java' > "$OUT/sources.txt"
javac -nowarn -encoding UTF-8 -source 8 -target 8 -cp "$CP" -d "$OUT/classes" @"$OUT/sources.txt"
echo "$CP:$OUT/classes" > "$OUT/classpath.txt"
echo "built: export OPENTAFL_CLASSPATH=\$(cat $OUT/classpath.txt)"
