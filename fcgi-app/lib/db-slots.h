/*
 * db-slots.h - the installation's connection budget (db-max-connections):
 * every database connection of a FastCGI process or of the worker
 * daemon holds one of db-max-connections places while it is open, so
 * that the installation never takes more connections than the host
 * grants (MAX_USER_CONNECTIONS), however many processes the web server
 * starts.  The places are byte-range locks (fcntl(2) F_SETLK) on one
 * file in run-dir, byte i for place i: the kernel gives a place back
 * when its process ends, however it ends, and the processes need no
 * common parent (mod_fcgid starts each on its own).  Without run-dir
 * there is no budget: every connection may be opened.
 */
#ifndef DB_SLOTS_H
#define DB_SLOTS_H

#include <sys/types.h>

#include <stddef.h>

struct cfg;

/* The lock file's name in run-dir. */
#define DBSLOTS_FILE	"db-connections.lock"

/*
 * Take a free place for one connection of this process.  Returns the
 * place (0 to db-max-connections - 1), DBSLOTS_NONE when there is no
 * budget (run-dir empty, or its file cannot be opened: logged once),
 * or DBSLOTS_FULL when every place is held.  Never waits.
 */
#define DBSLOTS_NONE	(-1)
#define DBSLOTS_FULL	(-2)
int	 dbslots_take(const struct cfg *c);

/* Give place i back (a value from dbslots_take(); others are ignored). */
void	 dbslots_give(int i);

/*
 * For the operator: how many of c's places are held now, by any
 * process, into *held, and the pids of up to npids holders into pids.
 * Only for a process that holds no place (it opens and closes the file,
 * which would drop its own).  Returns 0, or -1 when there is no budget
 * or the file cannot be read.
 */
int	 dbslots_count(const struct cfg *c, size_t *held, pid_t *pids,
	    size_t npids);

#endif /* DB_SLOTS_H */
