/* test_viewcache.c: the public view cache on its own (src/viewcache.c): what it keeps, what it
 * refuses to keep (an old view read before an invalidation, anything while off), a view true
 * only until a time (a seat's presence), that it never holds more than its bound, and its shared
 * texts (a reader's reference outlives the entry; what is attached is freed with the text). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "viewcache.h"

static bool cached(struct view_cache *vc, const char *id, const char *want)
{
    char *body;
    size_t len;
    if (!view_cache_get(vc, id, &body, &len))
        return false;
    bool same = want && len == strlen(want) && strcmp(body, want) == 0;
    free(body);
    return same;
}

Test(viewcache, keeps_a_view_until_its_game_changes)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_set_enabled(vc, true);
    view_cache_put(vc, "g1", view_cache_ticket(vc, "g1"), "{\"v\":1}", 7);
    cr_assert(cached(vc, "g1", "{\"v\":1}"));
    view_cache_invalidate(vc, "g1");
    cr_assert_not(cached(vc, "g1", NULL));
    view_cache_free(vc);
}

/* An object attached to a text, as the HTTP layer's prepared reply: it keeps the text until
 * both the text's last reference and its own last user are gone. */
struct holder {
    struct view_text *text;
    int users; /* the text's hold counts as one */
};
static int holders_freed;

static void holder_done(struct holder *h)
{
    if (--h->users == 0) {
        view_text_free(h->text);
        free(h);
        holders_freed++;
    }
}

static void holder_release(void *obj)
{
    holder_done(obj);
}

Test(viewcache, a_shared_text_outlives_its_entry_and_what_is_attached_frees_it)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_set_enabled(vc, true);
    view_cache_put(vc, "g1", view_cache_ticket(vc, "g1"), "{\"v\":1}", 7);
    struct view_text *t = view_cache_get_text(vc, "g1");
    cr_assert_not_null(t);
    size_t len;
    cr_assert_str_eq(view_text_body(t, &len), "{\"v\":1}");
    cr_assert_eq(len, 7);
    cr_assert_null(view_text_attached(t));
    cr_assert_not(view_text_claim(t), "the first reader does not claim it (read once)");
    cr_assert(view_text_claim(t), "the second one does");
    cr_assert_not(view_text_claim(t), "a third one does not");
    cr_assert_null(view_text_attached(t), "nothing is attached while it is being built");
    struct holder *h = malloc(sizeof *h);
    *h = (struct holder){t, 2}; /* the text's hold, and a reader sending it */
    view_text_attach(t, h, holder_release);
    cr_assert_not(view_text_claim(t), "claimed for good once attached");
    struct view_text *again = view_cache_get_text(vc, "g1");
    cr_assert_eq(again, t, "the same text, not a copy");
    cr_assert_eq(view_text_attached(again), h);
    view_text_release(again);
    holders_freed = 0;
    view_cache_invalidate(vc, "g1"); /* the cache lets go; the reader still holds it */
    cr_assert_null(view_cache_get_text(vc, "g1"));
    view_text_release(t); /* the text's last reference: its hold on the object goes */
    cr_assert_eq(holders_freed, 0, "the object's reader still sends it");
    cr_assert_str_eq(view_text_body(t, &len), "{\"v\":1}", "the text lives while it is sent");
    holder_done(h); /* its last user: the object and the text go */
    cr_assert_eq(holders_freed, 1);
    view_cache_put(vc, "g1", view_cache_ticket(vc, "g1"), "{\"v\":2}", 7);
    struct view_text *fresh = view_cache_get_text(vc, "g1");
    cr_assert_str_eq(view_text_body(fresh, &len), "{\"v\":2}");
    cr_assert_null(view_text_attached(fresh), "a new view starts with nothing attached");
    cr_assert_not(view_text_claim(fresh));
    cr_assert(view_text_claim(fresh));
    view_text_unclaim(fresh); /* a reader that could not build gives it back */
    cr_assert(view_text_claim(fresh));
    view_text_unclaim(fresh);
    view_text_release(fresh);
    view_text_release(NULL);
    view_cache_free(vc);
}

Test(viewcache, a_view_true_until_a_time_is_not_served_after_it)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_set_enabled(vc, true);
    double now = view_cache_now();
    /* A seat online until now + 0.2 s: the view that says so is served only until then. */
    view_cache_put_until(vc, "g1", view_cache_ticket(vc, "g1"), "online", 6, now + 0.2);
    cr_assert(cached(vc, "g1", "online"));
    view_cache_put_until(vc, "g2", view_cache_ticket(vc, "g2"), "past", 4, now - 1);
    cr_assert_not(cached(vc, "g2", NULL));
    struct timespec ts = {0, 250 * 1000 * 1000};
    nanosleep(&ts, NULL);
    cr_assert_not(cached(vc, "g1", NULL), "out of date");
    view_cache_put_until(vc, "g1", view_cache_ticket(vc, "g1"), "away", 4, 0);
    cr_assert(cached(vc, "g1", "away"), "the next read replaces it; 0 is for good");
    view_cache_free(vc);
}

Test(viewcache, a_view_true_while_each_part_is_lives_on_as_its_parts_are_extended)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_set_enabled(vc, true);
    double now = view_cache_now();
    /* Seat 0 online until now + 0.2 s, seat 1 until now + 0.6 s, seat 2 away or a bot (0). */
    const double until[] = {now + 0.2, now + 0.6, 0};
    view_cache_put_parts(vc, "g1", view_cache_ticket(vc, "g1"), "both", 4, until, 3);
    cr_assert(cached(vc, "g1", "both"));
    cr_assert_not(view_cache_extend(vc, "g1", 2, now + 5), "a part true for good stays so");
    cr_assert_not(view_cache_extend(vc, "g1", 3, now + 5), "no such part");
    cr_assert_not(view_cache_extend(vc, "g2", 0, now + 5), "no such view");
    /* Seat 0 was seen again: its part lasts longer, and the view with it, until seat 1's end. */
    cr_assert(view_cache_extend(vc, "g1", 0, now + 2));
    cr_assert_not(view_cache_extend(vc, "g1", 0, now + 1), "an extension never shortens");
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    cr_assert(cached(vc, "g1", "both"), "seat 0's first end passed: still true");
    nanosleep(&ts, NULL);
    nanosleep(&ts, NULL);
    cr_assert_not(cached(vc, "g1", NULL), "seat 1's end passed: out of date");
    /* A view stored without parts (view_cache_put_until) has none to extend. */
    view_cache_put_until(vc, "g3", view_cache_ticket(vc, "g3"), "x", 1, view_cache_now() + 1);
    cr_assert_not(view_cache_extend(vc, "g3", 0, view_cache_now() + 5));
    view_cache_free(vc);
}

Test(viewcache, refuses_a_view_read_before_its_game_changed)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_set_enabled(vc, true);
    uint64_t ticket = view_cache_ticket(vc, "g1"); /* a reader starts reading g1 ... */
    view_cache_invalidate(vc, "g1");               /* ... a write to g1 is announced ... */
    view_cache_put(vc, "g1", ticket, "old", 3);    /* ... the reader's view is old news */
    cr_assert_not(cached(vc, "g1", NULL));
    view_cache_put(vc, "g1", view_cache_ticket(vc, "g1"), "new", 3);
    cr_assert(cached(vc, "g1", "new"));
    view_cache_free(vc);
}

Test(viewcache, holds_nothing_while_off_and_comes_back_empty)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_put(vc, "g1", view_cache_ticket(vc, "g1"), "x", 1);
    cr_assert_not(cached(vc, "g1", NULL), "a new cache is off until the hub listens");
    view_cache_set_enabled(vc, true);
    view_cache_put(vc, "g1", view_cache_ticket(vc, "g1"), "x", 1);
    uint64_t ticket = view_cache_ticket(vc, "g2");
    view_cache_set_enabled(vc, false); /* the listener's connection broke */
    cr_assert_not(cached(vc, "g1", NULL));
    view_cache_set_enabled(vc, true);
    cr_assert_not(cached(vc, "g1", NULL), "news may have been missed: nothing survives");
    view_cache_put(vc, "g2", ticket, "y", 1);
    cr_assert_not(cached(vc, "g2", NULL), "a view read before the outage is not kept");
    view_cache_free(vc);
}

Test(viewcache, forgetting_everything_drops_every_view)
{
    struct view_cache *vc = view_cache_new(64);
    view_cache_set_enabled(vc, true);
    char id[16];
    for (int i = 0; i < 20; i++) {
        snprintf(id, sizeof id, "g%d", i);
        view_cache_put(vc, id, view_cache_ticket(vc, id), "v", 1);
    }
    view_cache_invalidate(vc, "*");
    size_t entries;
    uint64_t hits, misses;
    view_cache_stats(vc, &entries, &hits, &misses);
    cr_assert_eq(entries, 0);
    cr_assert_not(cached(vc, "g3", NULL));
    view_cache_free(vc);
}

Test(viewcache, never_holds_more_than_its_bound)
{
    struct view_cache *vc = view_cache_new(100);
    view_cache_set_enabled(vc, true);
    char id[16];
    for (int i = 0; i < 5000; i++) {
        snprintf(id, sizeof id, "game-%d", i);
        view_cache_put(vc, id, view_cache_ticket(vc, id), "view", 4);
        size_t entries;
        uint64_t hits, misses;
        view_cache_stats(vc, &entries, &hits, &misses);
        cr_assert_leq(entries, 100, "%zu entries after %d puts", entries, i + 1);
    }
    cr_assert(cached(vc, id, "view"), "the newest view is kept");
    view_cache_free(vc);
}

Test(viewcache, a_cache_of_size_zero_keeps_nothing)
{
    struct view_cache *vc = view_cache_new(0);
    view_cache_set_enabled(vc, true);
    view_cache_put(vc, "g1", view_cache_ticket(vc, "g1"), "x", 1);
    cr_assert_not(cached(vc, "g1", NULL));
    view_cache_free(vc);
}

Test(viewcache,
     a_games_members_go_with_it_and_a_presence_change_keeps_them_and_a_seats_news_drops_only_them)
{
    struct view_cache *vc = view_cache_new(64);
    view_cache_set_enabled(vc, true);
    const char *keys[] = {"g1", "g1/aa", "g1/bb", "g10", "g10/aa", "g2/aa"};
    for (int i = 0; i < 6; i++)
        view_cache_put_tagged(vc, keys[i], view_cache_ticket(vc, keys[i]), keys[i], strlen(keys[i]),
                              0, i);
    for (int i = 0; i < 6; i++)
        cr_assert(cached(vc, keys[i], keys[i]), "%s", keys[i]);
    struct view_text *t = view_cache_get_text(vc, "g1/bb");
    cr_assert_eq(view_text_tag(t), 2, "the tag it was stored with");
    view_text_release(t);
    /* A presence change: the public view goes, the hands stay, and a hand read before it is
     * not stored (its ticket fails like any other of the game). */
    uint64_t before = view_cache_ticket(vc, "g1/cc");
    view_cache_invalidate_own(vc, "g1");
    cr_assert_not(cached(vc, "g1", NULL));
    cr_assert(cached(vc, "g1/aa", "g1/aa") && cached(vc, "g1/bb", "g1/bb"));
    view_cache_put(vc, "g1/cc", before, "old", 3);
    cr_assert_not(cached(vc, "g1/cc", NULL), "a member read before the news was stored");
    /* A change of the game: its members go too; another game's ("g10", a longer id with the
     * same start) and another game's members stay. */
    view_cache_invalidate(vc, "g1");
    cr_assert_not(cached(vc, "g1/aa", NULL));
    cr_assert_not(cached(vc, "g1/bb", NULL));
    cr_assert(cached(vc, "g10", "g10") && cached(vc, "g10/aa", "g10/aa"));
    cr_assert(cached(vc, "g2/aa", "g2/aa"));
    /* A seat's own news (an amended order): the members go, the public view stays. */
    view_cache_invalidate_members(vc, "g2");
    cr_assert_not(cached(vc, "g2/aa", NULL));
    size_t entries;
    uint64_t hits, misses, mhits, mmisses;
    view_cache_stats(vc, &entries, &hits, &misses);
    view_cache_member_stats(vc, &mhits, &mmisses);
    cr_expect_eq(entries, 2, "g10 and g10/aa are left");
    /* Counted apart: g1 and g10 found, g1 missed after the news, g10 found again; eight
     * members found, g1/cc and the two forgotten ones missed. */
    cr_expect_eq(hits, 3);
    cr_expect_eq(misses, 1);
    cr_expect_eq(mhits, 9);
    cr_expect_eq(mmisses, 4);
    view_cache_free(vc);
}

/* The writer of a change takes a ticket before its commit and announces the change after it
 * (view_cache_invalidate_since): what it knows as of its change may be kept only when no other
 * news of the game came between, and only until the next news. */
Test(viewcache, a_writers_note_is_kept_only_when_its_change_was_the_only_news)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_set_enabled(vc, true);
    uint64_t before = view_cache_ticket(vc, "g1"), after = 0;
    view_cache_put(vc, "g1/h", before, "old hand", 8);
    cr_assert(view_cache_invalidate_since(vc, "g1", before, &after), "its own change alone");
    cr_expect_not(cached(vc, "g1/h", NULL), "the announcement forgets the game's members");
    view_cache_put(vc, "g1/~", after, "row", 3);
    cr_expect(cached(vc, "g1/~", "row"), "kept with the ticket from just after");
    view_cache_invalidate(vc, "g1");
    cr_expect_not(cached(vc, "g1/~", NULL), "until the game's next news");

    /* Other news of the game between the ticket and the announcement: nothing may be kept. */
    before = view_cache_ticket(vc, "g1");
    view_cache_invalidate(vc, "g1"); /* another instance's change, heard meanwhile */
    after = 0;
    cr_expect_not(view_cache_invalidate_since(vc, "g1", before, &after));
    /* A presence change is news of the game's own view: it counts too. */
    before = view_cache_ticket(vc, "g1");
    view_cache_invalidate_own(vc, "g1");
    cr_expect_not(view_cache_invalidate_since(vc, "g1", before, &after));
    /* Nothing while the cache is off, and a ticket from before it was turned back on fails. */
    before = view_cache_ticket(vc, "g1");
    view_cache_set_enabled(vc, false);
    cr_expect_not(view_cache_invalidate_since(vc, "g1", before, &after));
    view_cache_set_enabled(vc, true);
    cr_expect_not(view_cache_invalidate_since(vc, "g1", before, &after));
    view_cache_free(vc);
}

/* A peek at an entry that is not a view is not counted as a lookup of one. */
Test(viewcache, a_peek_is_not_counted_as_a_lookup)
{
    struct view_cache *vc = view_cache_new(16);
    view_cache_set_enabled(vc, true);
    view_cache_put(vc, "g1/~", view_cache_ticket(vc, "g1"), "row", 3);
    char *body;
    size_t len;
    cr_assert(view_cache_peek(vc, "g1/~", &body, &len));
    cr_expect(len == 3 && strcmp(body, "row") == 0);
    free(body);
    cr_expect_not(view_cache_peek(vc, "g2/~", &body, &len));
    uint64_t hits, misses;
    view_cache_member_stats(vc, &hits, &misses);
    cr_expect(hits == 0 && misses == 0, "peeks counted: %llu hits, %llu misses",
              (unsigned long long)hits, (unsigned long long)misses);
    view_cache_free(vc);
}
