/* hello.c: the read benchmark's baseline: the smallest useful libmicrohttpd daemon, started
 * with the same threading flags and connection options as `cityd serve` (src/http.c: epoll in
 * an internal thread pool of THREADS threads, suspendable connections), that answers every
 * request with a fixed small JSON body. `make bench` loads it and cityd's public game view
 * with the same load tool in the same run; read_ratio is their quotient.
 *
 * usage: hello PORT [THREADS]   (THREADS 1..1024, default 16; runs until SIGINT or SIGTERM) */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload_data, (void)upload_size;
    static const char body[] = "{\"hello\":\"world\"}";
    if (!*con_cls) { /* the first call only announces the request */
        *con_cls = conn;
        return MHD_YES;
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        sizeof body - 1, (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    return ret;
}

int main(int argc, char **argv)
{
    int port = argc > 1 ? atoi(argv[1]) : 0;
    int threads = argc > 2 ? atoi(argv[2]) : 16;
    if (argc > 3 || port <= 0 || port > 65535 || threads < 1 || threads > 1024) {
        fprintf(stderr, "usage: hello PORT [THREADS]\n");
        return 2;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct MHD_Daemon *d =
        MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
                             MHD_USE_DUAL_STACK | MHD_USE_ERROR_LOG,
                         (uint16_t)port, NULL, NULL, on_request, NULL, MHD_OPTION_THREAD_POOL_SIZE,
                         (unsigned)threads, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
                         MHD_OPTION_CONNECTION_LIMIT, 4000u, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "hello: cannot listen on port %d\n", port);
        return 1;
    }
    printf("hello: serving http://localhost:%d with %d threads\n", port, threads);
    fflush(stdout);
    while (!stopping)
        pause();
    MHD_stop_daemon(d);
    return 0;
}
