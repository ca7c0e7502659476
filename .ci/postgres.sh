# Source this file (`. .ci/postgres.sh 15`): installs Debian's PostgreSQL of that major version when it is
# missing, starts a throw-away cluster of it on a free port under a temporary folder (durability off: it is
# deleted after the run), and exports CI_POSTGRES_URL, a superuser's connection string to it.
# The cluster stops when the sourcing shell exits.
_pgv=${1:-15}
_bin=/usr/lib/postgresql/$_pgv/bin
if [ ! -x "$_bin/postgres" ]; then
  _sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
  $_sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $_sudo apt-get install -y -qq --no-install-recommends "postgresql-$_pgv" >/dev/null
fi
_pgdir=$(mktemp -d -t "ci-postgres$_pgv.XXXX")
chmod 755 "$_pgdir"
# postgres refuses to run as root: as root, the cluster belongs to the postgres user Debian's package made.
if [ "$(id -u)" -eq 0 ]; then _as="runuser -u postgres --"; chown postgres "$_pgdir"; else _as=""; fi
_pgport=$(node -e 's=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
$_as "$_bin/initdb" -D "$_pgdir/data" -U ci --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
$_as "$_bin/pg_ctl" -D "$_pgdir/data" -l "$_pgdir/log" -w start \
  -o "-p $_pgport -k $_pgdir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" >/dev/null
export CI_POSTGRES_URL="postgres://ci@127.0.0.1:$_pgport/postgres"
trap "$_as '$_bin/pg_ctl' -D '$_pgdir/data' -m immediate stop >/dev/null 2>&1; rm -rf '$_pgdir'" EXIT
echo "PostgreSQL $("$_bin/postgres" --version | awk '{print $3}') at 127.0.0.1:$_pgport for this run"
unset _pgv _bin _sudo _pgdir _as _pgport
