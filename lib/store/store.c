// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening the SQLite store: connection pragmas, refusing files that are not ours or are
 * newer than this binary, migrating older ones in one transaction, mapping SQLite errors
 * to messages that name the file and say what to do; and the small direct writes (hosts,
 * runs) that do not go through the writer thread.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "schema-sql.h"
#include "store-bins-local.h"
#include "store-local.h"
#include "version.h"

#define DEFAULT_BUSY_MS 5000

uint64_t sl_store_now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sl_store_dberr(const char *path, sqlite3 *db, int rc, const char *doing)
{
	const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		return sl_error(-SL_EFORMAT,
				"%s '%s': not an SQLite database: give another file, or move this "
				"one away",
				doing, path);
	case SQLITE_CORRUPT:
		return sl_error(-SL_EDB,
				"%s '%s': database is corrupt (%s): stop its writers, keep a copy, "
				"then recover with: sqlite3 '%s' .recover | sqlite3 new.db",
				doing, path, msg, path);
	case SQLITE_READONLY:
		return sl_error(
			-EROFS,
			"%s '%s': read-only (%s): check the permissions of the file and its "
			"directory (the -wal and -shm files are created beside it)",
			doing, path, msg);
	case SQLITE_FULL:
		return sl_error(-ENOSPC,
				"%s '%s': disk or size limit full (%s): free space or lower the "
				"retention; what was committed before is kept",
				doing, path, msg);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return sl_error(-EBUSY,
				"%s '%s': locked by another process (%s): is another schedlensd or "
				"recorder writing it? retry when it is done",
				doing, path, msg);
	case SQLITE_CANTOPEN:
		return sl_error(-EACCES,
				"%s '%s': cannot open (%s): check that its directory exists and is "
				"writable",
				doing, path, msg);
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return sl_error(-EACCES, "%s '%s': permission denied (%s)", doing, path, msg);
	case SQLITE_IOERR:
		return sl_error(-EIO, "%s '%s': I/O error (%s): check the disk", doing, path, msg);
	case SQLITE_NOMEM:
		return sl_error(-ENOMEM, "%s '%s': out of memory", doing, path);
	}
	return sl_error(-SL_EDB, "%s '%s': %s", doing, path, msg);
}

int sl_store_exec(sqlite3 *db, const char *path, const char *sql, const char *doing)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return sl_store_dberr(path, db, rc, doing);
	return 0;
}

/* Runs a one-integer query (a PRAGMA); *ret unchanged if it yields no row. */
static int query_int(sqlite3 *db, const char *path, const char *sql, int64_t *ret)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return sl_store_dberr(path, db, rc, "opening");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sl_store_dberr(path, db, rc, "opening");
	return 0;
}

static int check_writable(struct sl_store *store, const char *doing)
{
	if (store->flags & SL_STORE_RDONLY)
		return sl_error(-EROFS, "%s '%s': the store was opened read-only", doing,
				store->path);
	return 0;
}

/* S_IFMT's kinds, for "is a character device" messages. */
static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a fifo";
	case S_IFSOCK:
		return "a socket";
	}
	return "not a regular file";
}

/*
 * Before SQLite sees the path: SQLite would open /dev/null or a fifo and create
 * "/dev/null-journal" beside it, and calls a directory an I/O error. A path that exists
 * must be a regular file (or a link to one); a missing one needs SL_STORE_CREATE and an
 * existing, writable directory.
 */
static int check_path(const char *path, unsigned int flags)
{
	struct stat sb;
	char *dir, *slash;
	int err = 0;

	if (!*path)
		return sl_error(-EINVAL, "no database path given");
	if (stat(path, &sb) == 0) {
		if (S_ISREG(sb.st_mode))
			return 0;
		if (S_ISDIR(sb.st_mode))
			return sl_error(-EISDIR,
					"cannot open '%s': it is a directory: give a database "
					"file's path (e.g. '%s/schedlens.db')",
					path, path);
		return sl_error(-EINVAL,
				"cannot open '%s': it is %s, not a regular file: give a database "
				"file's path",
				path, file_kind(sb.st_mode));
	}
	if (errno != ENOENT)
		return sl_error(-errno, "cannot open '%s': %s", path, strerror(errno));
	/* the path is missing: say whether the file or its directory is */
	dir = strdup(path);
	if (!dir)
		return sl_error(-ENOMEM, "opening '%s': out of memory", path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		err = sl_error(-ENOENT, "cannot open '%s': directory '%s' does not exist", path,
			       dir);
	else if (!(flags & SL_STORE_CREATE) || (flags & SL_STORE_RDONLY))
		err = sl_error(-ENOENT,
			       "cannot open '%s': no such file: record something first, or check "
			       "--db",
			       path);
	else if (access(dir, W_OK) < 0)
		err = sl_error(-errno, "cannot create '%s': directory '%s' is %s", path, dir,
			       errno == EROFS ? "on a read-only file system" : "not writable");
	free(dir);
	return err;
}

/*
 * A read-only open of a WAL database needs its -shm file, which SQLite creates beside the
 * database: on read-only media (a read-only mount or bind mount, a directory we cannot
 * write) with no -shm left over, it fails with SQLITE_CANTOPEN. When there is no -wal
 * either (the last writer closed cleanly) nothing can be writing the file, and it is
 * opened as immutable: no locks, no -shm. Returns 1 when that applies.
 */
static int can_open_immutable(const char *path)
{
	char side[PATH_MAX];
	struct statvfs vfs;
	struct stat sb;
	char *dir, *slash;
	bool ro;

	if (snprintf(side, sizeof(side), "%s-wal", path) >= (int)sizeof(side))
		return 0;
	if (stat(side, &sb) == 0 && sb.st_size > 0)
		return -1; /* a log we would ignore: refused with its own message */
	snprintf(side, sizeof(side), "%s-shm", path);
	if (stat(side, &sb) == 0)
		return 0;
	ro = statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
	if (!ro) {
		dir = strdup(path);
		if (!dir)
			return 0;
		slash = strrchr(dir, '/');
		if (slash)
			slash == dir ? (slash[1] = '\0') : (*slash = '\0');
		ro = access(slash ? dir : ".", W_OK) < 0;
		free(dir);
	}
	return ro;
}

/* "file:" URI for path with the query q: every byte but [A-Za-z0-9/._~-] percent-coded. */
static char *uri_for(const char *path, const char *q)
{
	size_t n = strlen(path);
	char *u = malloc(3 * n + strlen(q) + 16), *p;

	if (!u)
		return NULL;
	p = u + sprintf(u, "file:%s", path[0] == '/' ? "//" : "");
	for (; *path; path++) {
		unsigned char c = (unsigned char)*path;

		if (isalnum(c) || strchr("/._~-", c))
			*p++ = (char)c;
		else
			p += sprintf(p, "%%%02X", c);
	}
	sprintf(p, "?%s", q);
	return u;
}

int sl_store_connect(const char *path, unsigned int flags, unsigned int busy_ms,
		     int64_t max_page_count, sqlite3 **ret_db)
{
	int oflags = SQLITE_OPEN_READWRITE;
	sqlite3 *db = NULL;
	char *uri = NULL;
	int64_t app_id = 0;
	int rc, err;

	if (flags & SL_STORE_RDONLY)
		oflags = SQLITE_OPEN_READONLY;
	/* a connection used by one thread only skips SQLite's per-call mutex */
	if (flags & SL_STORE_ONE_THREAD)
		oflags |= SQLITE_OPEN_NOMUTEX;
	else if (flags & SL_STORE_CREATE)
		oflags |= SQLITE_OPEN_CREATE;
	err = check_path(path, flags);
	if (err)
		return err;
reopen:
	if (uri)
		oflags |= SQLITE_OPEN_URI;
	rc = sqlite3_open_v2(uri ? uri : path, &db, oflags, NULL);
	if (rc != SQLITE_OK) {
		err = sl_store_dberr(path, db, rc, "opening");
		goto close;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, busy_ms ? (int)busy_ms : DEFAULT_BUSY_MS);
	/* the per-event tables are virtual tables over segments (store-segments.c) */
	rc = sl_store_register_segments(db);
	if (rc != SQLITE_OK) {
		err = sl_store_dberr(path, db, rc, "opening");
		goto close;
	}
	/* The first read of the header: a file that is not a database fails here. */
	sl_error_clear();
	err = query_int(db, path, "PRAGMA application_id", &app_id);
	if (err && (flags & SL_STORE_RDONLY) && !uri &&
	    (sqlite3_extended_errcode(db) & 0xff) == SQLITE_CANTOPEN) {
		int imm = can_open_immutable(path);

		if (imm < 0) {
			err = sl_error(-EROFS,
				       "cannot read '%s': it has a write-ahead log ('%s-wal') but "
				       "no '%s-shm', and its directory is read-only: copy the "
				       "three files to writable storage and open the copy",
				       path, path, path);
			goto close;
		}
		if (imm > 0) {
			uri = uri_for(path, "immutable=1");
			if (!uri) {
				err = sl_error(-ENOMEM, "opening '%s': out of memory", path);
				goto close;
			}
			sqlite3_close(db);
			db = NULL;
			goto reopen;
		}
	}
	if (err)
		goto close;
	if (!(flags & SL_STORE_RDONLY)) {
		/* 64 MiB of page cache: the writer's appends stay in memory between commits */
		err = sl_store_exec(db, path,
				    "PRAGMA synchronous=NORMAL; PRAGMA secure_delete=OFF; "
				    "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY",
				    "opening");
		if (err)
			goto close;
	}
	if (max_page_count > 0) {
		char sql[64];
		int64_t got = 0;

		snprintf(sql, sizeof(sql), "PRAGMA max_page_count=%lld", (long long)max_page_count);
		err = query_int(db, path, sql, &got);
		if (err)
			goto close;
	}
	free(uri);
	*ret_db = db;
	return 0;
close:
	free(uri);
	sqlite3_close(db);
	return err;
}

/* WAL is persistent, so set once on a writable file, after we know the file is ours. */
static int set_wal(sqlite3 *db, const char *path)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &st, NULL);
	const unsigned char *mode;
	int err = 0;

	if (rc != SQLITE_OK)
		return sl_store_dberr(path, db, rc, "setting WAL mode on");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		err = sl_store_dberr(path, db, rc, "setting WAL mode on");
		goto finalize;
	}
	mode = sqlite3_column_text(st, 0);
	if (!mode || strcmp((const char *)mode, "wal") != 0)
		err = sl_error(-SL_EDB,
			       "cannot use WAL mode on '%s' (got '%s'): is it on a network file "
			       "system? use a local disk",
			       path, mode ? (const char *)mode : "?");
finalize:
	sqlite3_finalize(st);
	return err;
}

int sl_store_migrate(sqlite3 *db, const char *path, const struct sl_store_step *steps, int nr,
		     int target, const char *from_empty)
{
	int64_t version = 0;
	char sql[64];
	int from, err;

	if (target > nr)
		return sl_error(-SL_ERANGE, "no migration to schema %d for '%s'", target, path);
	/* IMMEDIATE: two processes opening an old file at once migrate it once */
	err = sl_store_exec(db, path, "BEGIN IMMEDIATE", "migrating");
	if (err)
		return err;
	err = query_int(db, path, "PRAGMA user_version", &version);
	if (err)
		goto rollback;
	from = (int)version + 1;
	if (version == 0 && from_empty) {
		err = sl_store_exec(db, path, from_empty, "creating the schema (current.sql) of");
		if (err)
			goto rollback;
		from = target + 1; /* no step left to run */
	}
	for (int v = from; v <= target; v++) {
		int rc = sqlite3_exec(db, steps[v - 1].sql, NULL, NULL, NULL);

		if (rc == SQLITE_OK && steps[v - 1].fill)
			rc = steps[v - 1].fill(db);

		if (rc != SQLITE_OK) {
			char doing[128];

			snprintf(doing, sizeof(doing), "migrating to schema %d (%04d-%s.sql)", v, v,
				 steps[v - 1].name);
			err = sl_store_dberr(path, db, rc, doing);
			goto rollback;
		}
	}
	if (version == 0) {
		snprintf(sql, sizeof(sql), "PRAGMA application_id=%d", SL_STORE_APP_ID);
		err = sl_store_exec(db, path, sql, "migrating");
		if (err)
			goto rollback;
	}
	if (version < target) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", target);
		err = sl_store_exec(db, path, sql, "migrating");
		if (err)
			goto rollback;
	}
	return sl_store_exec(db, path, "COMMIT", "migrating");
rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

static int check_ours(sqlite3 *db, const char *path, int64_t *ret_version)
{
	int64_t app_id = 0, version = 0, objects = 0;
	int err;

	err = query_int(db, path, "PRAGMA application_id", &app_id);
	if (!err)
		err = query_int(db, path, "PRAGMA user_version", &version);
	if (!err)
		err = query_int(db, path, "SELECT count(*) FROM sqlite_master", &objects);
	if (err)
		return err;
	if (app_id != SL_STORE_APP_ID && (app_id != 0 || version != 0 || objects != 0))
		return sl_error(-SL_EFORMAT,
				"'%s' is an SQLite database but not a schedlens one: give another "
				"file",
				path);
	if (version > SL_SCHEMA_VERSION)
		return sl_error(-SL_ESCHEMA,
				"'%s' has schema version %lld, newer than this schedlens (%d): "
				"upgrade schedlens, or use another file",
				path, (long long)version, SL_SCHEMA_VERSION);
	*ret_version = version;
	return 0;
}

int sl_store_open_opts(const char *path, const struct sl_store_opts *opts,
		       struct sl_store **ret_store)
{
	static const struct sl_store_opts defaults;
	struct sl_store_step steps[SL_SCHEMA_VERSION];
	struct sl_store *store;
	int64_t version = 0;
	int target, err;

	if (!opts)
		opts = &defaults;
	target = opts->schema_version > 0 ? opts->schema_version : SL_SCHEMA_VERSION;
	if (target > SL_SCHEMA_VERSION)
		return sl_error(-SL_ERANGE, "schema version %d: this schedlens knows up to %d",
				target, SL_SCHEMA_VERSION);
	if (opts->page_size && (opts->page_size < 512 || opts->page_size > 65536 ||
				(opts->page_size & (opts->page_size - 1))))
		return sl_error(
			-EINVAL,
			"opening '%s': page size %d is not a power of two from 512 to 65536", path,
			opts->page_size);
	store = calloc(1, sizeof(*store));
	if (!store)
		return sl_error(-ENOMEM, "opening '%s': out of memory", path);
	store->path = strdup(path);
	store->flags = opts->flags;
	store->busy_ms = opts->busy_ms;
	if (!store->path) {
		err = sl_error(-ENOMEM, "opening '%s': out of memory", path);
		goto free;
	}
	err = sl_store_connect(path, opts->flags, opts->busy_ms, opts->max_page_count, &store->db);
	if (err)
		goto free;
	err = check_ours(store->db, path, &version);
	if (err)
		goto free;
	if (version < target && (opts->flags & SL_STORE_RDONLY)) {
		err = sl_error(
			-SL_ESCHEMA,
			"'%s' has schema version %lld, older than this schedlens (%d): "
			"open it once read-write (schedlens record or schedlensd) to migrate",
			path, (long long)version, target);
		goto free;
	}
	/* only an empty file takes it (version 0 means empty: check_ours) */
	if (!(opts->flags & SL_STORE_RDONLY) && version == 0 && opts->page_size) {
		char sql[48];

		snprintf(sql, sizeof(sql), "PRAGMA page_size=%d", opts->page_size);
		err = sl_store_exec(store->db, path, sql, "opening");
		if (err)
			goto free;
	}
	if (!(opts->flags & SL_STORE_RDONLY)) {
		err = set_wal(store->db, path);
		if (err)
			goto free;
	}
	if (version < target) {
		/*
		 * An empty file gets schema/current.sql, what the migrations leave it, in one
		 * step: a new store opens in half the CPU (6.6-7.2 ms instead of 12.0-14.0 in a
		 * fresh process; each ALTER TABLE of the migrations re-reads the whole schema).
		 * Not while the file is stale.
		 */
		const char *from_empty = NULL;

		if (target == SL_SCHEMA_VERSION && SL_SCHEMA_CURRENT_VERSION == SL_SCHEMA_VERSION &&
		    !(opts->flags & SL_STORE_BY_MIGRATIONS))
			from_empty = sl_schema_current;

		for (int i = 0; i < SL_SCHEMA_VERSION; i++) {
			steps[i].name = sl_migrations[i].name;
			steps[i].sql = sl_migrations[i].sql;
			/* schema 12's bins are summed in C: one bin in memory at a time */
			steps[i].fill = i + 1 == 12 ? sl_bins_fill_all : NULL;
			/* schema 13's segments are encoded in C */
			if (i + 1 == 13)
				steps[i].fill = sl_segments_fill_all;
		}
		err = sl_store_migrate(store->db, path, steps, SL_SCHEMA_VERSION, target,
				       from_empty);
		if (err)
			goto free;
		err = check_ours(store->db, path, &version);
		if (err)
			goto free;
	}
	store->version = (int)version;
	*ret_store = store;
	return 0;
free:
	sl_store_close(store);
	return err;
}

int sl_store_open(const char *path, unsigned int flags, struct sl_store **ret_store)
{
	struct sl_store_opts opts = { .flags = flags };

	return sl_store_open_opts(path, &opts, ret_store);
}

void sl_store_close(struct sl_store *store)
{
	if (!store)
		return;
	sqlite3_close(store->db);
	free(store->path);
	free(store);
}

const char *sl_store_path(const struct sl_store *store)
{
	return store->path;
}

int sl_store_schema_version(const struct sl_store *store)
{
	return store->version;
}

int sl_store_schema_latest(void)
{
	return SL_SCHEMA_VERSION;
}

struct sqlite3 *sl_store_db(struct sl_store *store)
{
	return store->db;
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
	if (s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

/* Prepares, lets the caller bind, steps once; on error finalizes and maps. */
static int prepare(struct sl_store *store, const char *sql, sqlite3_stmt **ret, const char *doing)
{
	int rc = sqlite3_prepare_v2(store->db, sql, -1, ret, NULL);

	if (rc != SQLITE_OK)
		return sl_store_dberr(store->path, store->db, rc, doing);
	return 0;
}

static int step_done(struct sl_store *store, sqlite3_stmt *st, const char *doing)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sl_store_dberr(store->path, store->db, rc, doing);
	return 0;
}

static int insert_cpus(struct sl_store *store, int64_t host_id, const struct sl_host_info *host)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(store,
		      "INSERT INTO cpus (host_id, cpu, online, core, llc, package, node) "
		      "VALUES (?, ?, ?, ?, ?, ?, ?)",
		      &st, "storing the topology in");
	if (err)
		return err;
	for (int i = 0; i < host->nr_cpu_rows; i++) {
		const struct sl_cpu_row *c = &host->cpus[i];
		int rc;

		sqlite3_bind_int64(st, 1, host_id);
		sqlite3_bind_int(st, 2, c->cpu);
		sqlite3_bind_int(st, 3, c->online);
		if (c->online) {
			sqlite3_bind_int(st, 4, c->core);
			sqlite3_bind_int(st, 5, c->llc);
			sqlite3_bind_int(st, 6, c->package);
		} else {
			sqlite3_bind_null(st, 4);
			sqlite3_bind_null(st, 5);
			sqlite3_bind_null(st, 6);
		}
		if (c->online && c->node >= 0)
			sqlite3_bind_int(st, 7, c->node);
		else
			sqlite3_bind_null(st, 7);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE) {
			err = sl_store_dberr(store->path, store->db, rc, "storing the topology in");
			break;
		}
	}
	sqlite3_finalize(st);
	return err;
}

int sl_store_host_upsert(struct sl_store *store, const struct sl_host_info *host,
			 int64_t *ret_host_id)
{
	int64_t now = (int64_t)sl_store_now_wall(), id = 0;
	sqlite3_stmt *st;
	int rc, err;

	err = check_writable(store, "storing a host in");
	if (err)
		return err;
	if (!host->hostname || !host->topo_hash)
		return sl_error(-EINVAL,
				"storing a host in '%s': hostname and topology hash needed",
				store->path);
	err = sl_store_exec(store->db, store->path, "BEGIN IMMEDIATE", "storing a host in");
	if (err)
		return err;
	err = prepare(
		store,
		"SELECT id FROM hosts WHERE hostname = ? AND machine_id = ? AND topo_hash = ?", &st,
		"storing a host in");
	if (err)
		goto rollback;
	bind_text(st, 1, host->hostname);
	bind_text(st, 2, host->machine_id ? host->machine_id : "");
	bind_text(st, 3, host->topo_hash);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		err = sl_store_dberr(store->path, store->db, rc, "storing a host in");
		goto rollback;
	}
	if (id) {
		err = prepare(store, "UPDATE hosts SET last_seen_wall = ? WHERE id = ?", &st,
			      "storing a host in");
		if (err)
			goto rollback;
		sqlite3_bind_int64(st, 1, now);
		sqlite3_bind_int64(st, 2, id);
		err = step_done(store, st, "storing a host in");
	} else {
		err = prepare(
			store,
			"INSERT INTO hosts (hostname, machine_id, topo_hash, topo_json, "
			"nr_cpus, first_seen_wall, last_seen_wall) VALUES (?, ?, ?, ?, ?, ?, ?)",
			&st, "storing a host in");
		if (err)
			goto rollback;
		bind_text(st, 1, host->hostname);
		bind_text(st, 2, host->machine_id ? host->machine_id : "");
		bind_text(st, 3, host->topo_hash);
		bind_text(st, 4, host->topo_json);
		sqlite3_bind_int(st, 5, host->nr_cpus);
		sqlite3_bind_int64(st, 6, now);
		sqlite3_bind_int64(st, 7, now);
		err = step_done(store, st, "storing a host in");
		if (err)
			goto rollback;
		id = sqlite3_last_insert_rowid(store->db);
		err = insert_cpus(store, id, host);
	}
	if (err)
		goto rollback;
	err = sl_store_exec(store->db, store->path, "COMMIT", "storing a host in");
	if (err)
		goto rollback;
	*ret_host_id = id;
	return 0;
rollback:
	sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

int sl_store_run_begin(struct sl_store *store, const struct sl_run_meta *m, int64_t *ret_run_id)
{
	sqlite3_stmt *st;
	int err;

	err = check_writable(store, "storing a run in");
	if (err)
		return err;
	if (!m->kernel_release)
		return sl_error(-EINVAL, "storing a run in '%s': kernel release needed",
				store->path);
	err = prepare(
		store,
		"INSERT INTO runs (host_id, kernel_release, kernel_version, cmdline, boot_id, "
		"preempt_mode, sched_features, sched_sysctls, workload, source, trace_clock, "
		"nr_cpus, recorder_version, start_wall, start_ns) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		&st, "storing a run in");
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, m->host_id);
	bind_text(st, 2, m->kernel_release);
	bind_text(st, 3, m->kernel_version);
	bind_text(st, 4, m->cmdline);
	bind_text(st, 5, m->boot_id);
	bind_text(st, 6, m->preempt_mode);
	bind_text(st, 7, m->sched_features);
	bind_text(st, 8, m->sched_sysctls);
	bind_text(st, 9, m->workload ? m->workload : "");
	bind_text(st, 10, m->source ? m->source : "live");
	bind_text(st, 11, m->trace_clock);
	sqlite3_bind_int(st, 12, m->nr_cpus);
	bind_text(st, 13, m->recorder_version ? m->recorder_version : SL_VERSION);
	sqlite3_bind_int64(st, 14,
			   (int64_t)(m->start_wall_ns ? m->start_wall_ns : sl_store_now_wall()));
	sqlite3_bind_int64(st, 15, (int64_t)m->start_ns);
	err = step_done(store, st, "storing a run in");
	if (err)
		return err;
	*ret_run_id = sqlite3_last_insert_rowid(store->db);
	/* runs.params came with schema 11: a file kept at an older version has no such column */
	if (!m->params || store->version < 11)
		return 0;
	err = prepare(store, "UPDATE runs SET params = ? WHERE id = ?", &st, "storing a run in");
	if (err)
		return err;
	bind_text(st, 1, m->params);
	sqlite3_bind_int64(st, 2, *ret_run_id);
	return step_done(store, st, "storing a run in");
}

int sl_store_run_end(struct sl_store *store, int64_t run_id, const struct sl_run_totals *t)
{
	sqlite3_stmt *st;
	int err;

	err = check_writable(store, "ending a run in");
	if (err)
		return err;
	err = prepare(store,
		      "UPDATE runs SET events = ?, lost_events = ?, has_gaps = ?, "
		      "end_ns = coalesce(?, end_ns), end_wall = coalesce(?, end_wall) WHERE id = ?",
		      &st, "ending a run in");
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, (int64_t)t->events);
	sqlite3_bind_int64(st, 2, (int64_t)t->lost_events);
	sqlite3_bind_int(st, 3, t->gaps);
	if (t->end_ns) {
		sqlite3_bind_int64(st, 4, (int64_t)t->end_ns);
		sqlite3_bind_int64(
			st, 5, (int64_t)(t->end_wall_ns ? t->end_wall_ns : sl_store_now_wall()));
	} else {
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
	}
	sqlite3_bind_int64(st, 6, run_id);
	err = step_done(store, st, "ending a run in");
	if (err)
		return err;
	if (sqlite3_changes(store->db) != 1)
		return sl_error(-ENOENT, "ending run %lld in '%s': no such run", (long long)run_id,
				store->path);
	return 0;
}
