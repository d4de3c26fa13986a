#!/usr/bin/env python3
"""The QML modules paddock-gui loads at run time, and the Debian packages that provide them, are
listed by hand in installers/linux/qml-modules.txt (dpkg-shlibdeps cannot see QML imports). This
test derives the same set from the sources and the installed Qt, and fails when the list drifts:

- every module imported by qml/**/*.qml (and the Controls style app/gui sets) has a row, and every
  row is such a module;
- the modules those load in turn (their qmldir's import/depends lines and the imports of their
  own QML files, for the style in use) are each provided by a package the list names, as dpkg -S
  says of the module's qmldir.

Usage: qml_module_depends_test.py SOURCE_DIR [QT_QML_DIR]
"""
import os
import re
import subprocess
import sys

src = sys.argv[1]
qml_root = sys.argv[2] if len(sys.argv) > 2 else "/usr/lib/x86_64-linux-gnu/qt6/qml"
failures = []

IMPORT = re.compile(r"^\s*import\s+([A-Za-z][A-Za-z0-9_.]*)", re.M)


def imports_of_files(paths):
    found = set()
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            found.update(IMPORT.findall(f.read()))
    return found


# The app's own imports.
app_files = [os.path.join(d, n) for d, _, names in os.walk(os.path.join(src, "qml"))
             for n in names if n.endswith(".qml")]
own = {"Paddock"}
app_imports = imports_of_files(app_files) - own
style = None
for d, _, names in os.walk(os.path.join(src, "app", "gui")):
    for n in names:
        if n.endswith(".cpp"):
            with open(os.path.join(d, n), encoding="utf-8") as f:
                m = re.search(r'QQuickStyle::setStyle\("([A-Za-z]+)"\)', f.read())
                if m:
                    style = m.group(1)
if style:
    app_imports.add("QtQuick.Controls." + style)

# The hand-written list.
rows = {}
list_path = os.path.join(src, "installers", "linux", "qml-modules.txt")
with open(list_path, encoding="utf-8") as f:
    for number, line in enumerate(f, 1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) < 2:
            failures.append(f"{list_path}:{number}: a module needs at least one package")
            continue
        rows[line[0]] = set(line[1:])
listed_packages = set().union(*rows.values()) if rows else set()

for m in sorted(app_imports - rows.keys()):
    failures.append(f"paddock-gui imports {m}, which {list_path} does not list")
for m in sorted(rows.keys() - app_imports):
    failures.append(f"{list_path} lists {m}, which paddock-gui does not import (stale row)")


def module_dir(uri):
    return os.path.join(qml_root, *uri.split("."))


def owner(path):
    r = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout.split(":", 1)[0].strip()


def loads(uri):
    """Modules a module loads in turn: its qmldir's imports and its own QML files' imports."""
    d = module_dir(uri)
    out = set()
    with open(os.path.join(d, "qmldir"), encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "depends"):
                out.add(words[1])
    files = []
    for sub, dirs, names in os.walk(d):
        # A subdirectory with its own qmldir is another module, reached only if something
        # imports it; file selectors (+Material, ...) apply only for their own style; designer/
        # holds Qt Design Studio's files, never loaded by an application.
        dirs[:] = [x for x in dirs if not os.path.exists(os.path.join(sub, x, "qmldir"))
                   and (not x.startswith("+") or x == "+" + (style or "")) and x != "designer"]
        files += [os.path.join(sub, n) for n in names if n.endswith(".qml")]
    return out | imports_of_files(files)


seen = set()
todo = [(m, m) for m in sorted(app_imports)]
while todo:
    uri, via = todo.pop()
    if uri in seen:
        continue
    seen.add(uri)
    qmldir = os.path.join(module_dir(uri), "qmldir")
    if not os.path.exists(qmldir):
        failures.append(f"{uri} (needed by {via}) is not installed: no {qmldir}")
        continue
    pkg = owner(qmldir)
    if pkg is None:
        failures.append(f"no Debian package owns {qmldir} ({uri}, needed by {via})")
    elif pkg not in listed_packages:
        failures.append(f"{uri} (needed by {via}) comes from {pkg}, which {list_path} does not name")
    elif uri in rows and pkg not in rows[uri]:
        failures.append(f"{list_path}: the row for {uri} does not name its own package {pkg}")
    for nxt in sorted(loads(uri)):
        todo.append((nxt, via))

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"qml modules: {len(app_imports)} imported, {len(seen)} loaded in all, "
      f"from {len(listed_packages)} listed packages: ok")
