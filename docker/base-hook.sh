#!/bin/sh
# docker/base-hook.sh ROOT: mmdebstrap's customize hook for the Debian base `make docker-test`
# makes (scripts/docker-test.sh): it lays ROOT out like the official debian:bookworm-slim image,
# whose settings it copies: no manuals, documentation (but copyright files) or translations,
# now and for every package installed later; apt downloads no translations and deletes the
# packages it has installed; dpkg does not fsync each file (a failed build is simply redone).
set -eu
root=$1

cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG

# What the packages of the base installed before those rules.
rm -rf "$root"/usr/share/man/* "$root"/usr/share/groff/* "$root"/usr/share/info/* \
    "$root"/usr/share/lintian/* "$root"/usr/share/linda/*
find "$root/usr/share/doc" -mindepth 1 -not -type d -not -name copyright -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
