/* test_names.c: player names (src/names.h): what NFC and trimming make of them, the characters
 * refused with the U+XXXX they are named by, the emoji and scripts that must still pass, and the
 * names that read as a bot's. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "names.h"

/* Cleans `in` (a C string); returns the verdict, the clean name in out and the reason in why. */
static char out[NAMES_MAX_BYTES + 1], why[400];

static enum name_verdict clean(const char *in)
{
    memset(out, 0, sizeof out);
    why[0] = 0;
    return name_clean(in, strlen(in), out, why, sizeof why);
}

static void accepted_as(const char *in, const char *want)
{
    enum name_verdict v = clean(in);
    cr_assert_eq(v, NAME_OK, "\"%s\" refused (%d): %s", in, v, why);
    cr_assert_str_eq(out, want);
}

static void refused_naming(const char *in, enum name_verdict want, const char *mention)
{
    enum name_verdict v = clean(in);
    cr_assert_eq(v, want, "\"%s\" -> %d, expected %d (%s)", in, v, want, why);
    if (mention)
        cr_assert(strstr(why, mention), "the reason for \"%s\" names %s: %s", in, mention, why);
}

/* ---- normalization ------------------------------------------------------------------------ */

Test(names, nfc_composes_e_and_acute_accent_into_one_character)
{
    accepted_as("Zoe\xcc\x81", "Zo\xc3\xa9");
}

Test(names, unicode_whitespace_is_trimmed_from_both_ends)
{
    /* space, tab, NBSP, ideographic space, NEL, line feed */
    accepted_as(" \t\xc2\xa0\xe3\x80\x80"
                "Ada\xc2\x85\n ",
                "Ada");
}

Test(names, inner_spaces_are_kept)
{
    accepted_as("Ada Lovelace", "Ada Lovelace");
}

Test(names, length_counts_characters_after_nfc_not_bytes)
{
    char in[256] = "";
    for (int i = 0; i < NAMES_MAX_CHARS; i++)
        strcat(in, "e\xcc\x81"); /* 80 code points as sent, 40 after NFC */
    cr_assert_eq(clean(in), NAME_OK, "%s", why);
    cr_assert_eq(strlen(out), 2 * NAMES_MAX_CHARS);
    strcat(in, "x");
    refused_naming(in, NAME_TOO_LONG, "1 to 40 characters");
}

Test(names, empty_and_blank_names_are_refused)
{
    refused_naming("", NAME_EMPTY, "1 to 40");
    refused_naming(" \t \xe3\x80\x80", NAME_EMPTY, "1 to 40");
}

Test(names, input_far_over_the_limit_is_refused_unread)
{
    char in[NAMES_MAX_INPUT + 2];
    memset(in, 'a', sizeof in - 1);
    in[sizeof in - 1] = 0;
    refused_naming(in, NAME_TOO_LONG, NULL);
}

Test(names, invalid_utf8_is_refused)
{
    refused_naming("Ada\xff", NAME_BAD_UTF8, "UTF-8");
}

/* ---- refused characters ------------------------------------------------------------------- */

Test(names, refuses_right_to_left_override_u202e)
{
    refused_naming("Ada\xe2\x80\xae"
                   "eve",
                   NAME_BAD_CHAR, "U+202E");
    cr_assert(strstr(why, "bidirectional"), "%s", why);
    cr_assert(strstr(why, "character 4"), "%s", why);
}

Test(names, refuses_every_bidi_control)
{
    static const char *const bidi[] = {"\xd8\x9c",     "\xe2\x80\x8e", "\xe2\x80\x8f",
                                       "\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac",
                                       "\xe2\x80\xad", "\xe2\x81\xa6", "\xe2\x81\xa7",
                                       "\xe2\x81\xa8", "\xe2\x81\xa9"};
    char in[32];
    for (size_t i = 0; i < sizeof bidi / sizeof *bidi; i++) {
        snprintf(in, sizeof in, "A%sB", bidi[i]);
        refused_naming(in, NAME_BAD_CHAR, "bidirectional");
    }
}

Test(names, refuses_zero_width_space_u200b)
{
    refused_naming("Ada\xe2\x80\x8b", NAME_BAD_CHAR, "U+200B");
    refused_naming("\xe2\x80\x8b", NAME_BAD_CHAR, "U+200B");
}

Test(names, refuses_c1_control_u0085_inside_a_name)
{
    refused_naming("Ada\xc2\x85"
                   "Eve",
                   NAME_BAD_CHAR, "U+0085");
    cr_assert(strstr(why, "control"), "%s", why);
}

Test(names, refuses_c0_controls_and_del_inside_a_name)
{
    refused_naming("Ada\tEve", NAME_BAD_CHAR, "U+0009");
    refused_naming("Ada\x1b[31m", NAME_BAD_CHAR, "U+001B");
    refused_naming("Ada\x7f", NAME_BAD_CHAR, "U+007F");
}

Test(names, refuses_invisible_characters)
{
    refused_naming("Ada\xe2\x81\xa0", NAME_BAD_CHAR, "U+2060"); /* word joiner */
    refused_naming("Ada\xe2\x81\xa4", NAME_BAD_CHAR, "U+2064"); /* invisible plus */
    refused_naming("\xef\xbb\xbf"
                   "Ada",
                   NAME_BAD_CHAR, "U+FEFF"); /* BOM */
    refused_naming("Ad\xc2\xad"
                   "a",
                   NAME_BAD_CHAR, "U+00AD");                    /* soft hyphen */
    refused_naming("Ada\xe1\xa0\x8e", NAME_BAD_CHAR, "U+180E"); /* Mongolian vowel sep. */
    refused_naming("\xe3\x85\xa4", NAME_BAD_CHAR, "U+3164");    /* Hangul filler */
    refused_naming("\xe2\xa0\x80", NAME_BAD_CHAR, "U+2800");    /* blank Braille */
    refused_naming("Ada\xe2\x80\xa8"
                   "Eve",
                   NAME_BAD_CHAR, "U+2028"); /* line separator */
}

Test(names, refuses_noncharacters_private_use_and_unassigned)
{
    refused_naming("Ada\xef\xb7\x90", NAME_BAD_CHAR, "U+FDD0");
    refused_naming("Ada\xef\xbf\xbe", NAME_BAD_CHAR, "U+FFFE");
    refused_naming("Ada\xee\x80\x80", NAME_BAD_CHAR, "U+E000");
    refused_naming("Ada\xf3\xb0\x80\x80", NAME_BAD_CHAR, "U+F0000");
    refused_naming("Ada\xcd\xb8", NAME_BAD_CHAR, "U+0378"); /* unassigned */
}

Test(names, zero_width_joiner_is_refused_outside_an_emoji_sequence)
{
    refused_naming("Ada\xe2\x80\x8d"
                   "Eve",
                   NAME_BAD_CHAR, "U+200D");
    refused_naming("\xf0\x9f\x91\xa9\xe2\x80\x8d", NAME_BAD_CHAR, "U+200D");
}

Test(names, zero_width_non_joiner_is_refused_between_latin_letters)
{
    refused_naming("Ada\xe2\x80\x8c"
                   "Eve",
                   NAME_BAD_CHAR, "U+200C");
}

Test(names, variation_selectors_are_refused_after_a_letter)
{
    refused_naming("Ada\xef\xb8\x8f", NAME_BAD_CHAR, "U+FE0F");
    refused_naming("Ada\xef\xb8\x80", NAME_BAD_CHAR, "U+FE00");
}

Test(names, tag_characters_are_refused_outside_a_flag)
{
    refused_naming("Ada\xf3\xa0\x81\xa7", NAME_BAD_CHAR, "U+E0067");
}

Test(names, a_leading_combining_mark_is_refused)
{
    refused_naming("\xcc\x81"
                   "Ada",
                   NAME_BAD_CHAR, "U+0301");
}

Test(names, more_than_four_stacked_marks_are_refused)
{
    /* a + five different marks that do not compose */
    refused_naming("a\xcc\x90\xcc\x91\xcc\x92\xcc\x93\xcc\x94", NAME_BAD_CHAR, "U+0314");
    accepted_as("a\xcc\x90\xcc\x91\xcc\x92\xcc\x93", "a\xcc\x90\xcc\x91\xcc\x92\xcc\x93");
}

/* ---- what passes -------------------------------------------------------------------------- */

Test(names, accepts_zoe_with_diaeresis)
{
    accepted_as("Zo\xc3\xab", "Zo\xc3\xab");
}

Test(names, accepts_cjk_hangul_cyrillic_arabic_and_devanagari)
{
    accepted_as("\xe5\xbc\xa0\xe4\xbc\x9f", "\xe5\xbc\xa0\xe4\xbc\x9f"); /* 张伟 */
    accepted_as("\xea\xb9\x80\xeb\xaf\xbc\xec\xa4\x80",
                "\xea\xb9\x80\xeb\xaf\xbc\xec\xa4\x80");                 /* 김민준 */
    accepted_as("\xd0\x90\xd0\xbd\xd1\x8f", "\xd0\x90\xd0\xbd\xd1\x8f"); /* Аня */
    accepted_as("\xd8\xb9\xd9\x84\xd9\x8a", "\xd8\xb9\xd9\x84\xd9\x8a"); /* علي */
    accepted_as("\xe0\xa4\x85\xe0\xa4\xae\xe0\xa4\xbf\xe0\xa4\xa4",      /* अमित */
                "\xe0\xa4\x85\xe0\xa4\xae\xe0\xa4\xbf\xe0\xa4\xa4");
}

Test(names, accepts_an_emoji)
{
    accepted_as("Ada \xf0\x9f\x8c\x86", "Ada \xf0\x9f\x8c\x86"); /* cityscape at dusk */
}

Test(names, accepts_emoji_zwj_sequences_with_skin_tones_and_vs16)
{
    /* woman technologist, medium skin tone: U+1F469 U+1F3FD U+200D U+1F4BB */
    accepted_as("\xf0\x9f\x91\xa9\xf0\x9f\x8f\xbd\xe2\x80\x8d\xf0\x9f\x92\xbb",
                "\xf0\x9f\x91\xa9\xf0\x9f\x8f\xbd\xe2\x80\x8d\xf0\x9f\x92\xbb");
    /* heart on fire: U+2764 U+FE0F U+200D U+1F525 */
    accepted_as("\xe2\x9d\xa4\xef\xb8\x8f\xe2\x80\x8d\xf0\x9f\x94\xa5",
                "\xe2\x9d\xa4\xef\xb8\x8f\xe2\x80\x8d\xf0\x9f\x94\xa5");
    /* keycap one: 1 U+FE0F U+20E3 */
    accepted_as("1\xef\xb8\x8f\xe2\x83\xa3", "1\xef\xb8\x8f\xe2\x83\xa3");
}

Test(names, accepts_the_flag_of_scotland_tag_sequence)
{
    const char *scotland = "\xf0\x9f\x8f\xb4\xf3\xa0\x81\xa7\xf3\xa0\x81\xa2\xf3\xa0\x81\xb3"
                           "\xf3\xa0\x81\xa3\xf3\xa0\x81\xb4\xf3\xa0\x81\xbf";
    accepted_as(scotland, scotland);
}

Test(names, accepts_zero_width_non_joiner_in_persian)
{
    /* mi-khaham: U+0645 U+06CC U+200C U+062E U+0648 U+0627 U+0647 U+0645 */
    const char *persian = "\xd9\x85\xdb\x8c\xe2\x80\x8c\xd8\xae\xd9\x88\xd8\xa7\xd9\x87\xd9\x85";
    accepted_as(persian, persian);
}

Test(names, accepts_an_ideographic_variation_sequence)
{
    /* 葛 U+845B with VS17 U+E0100 */
    accepted_as("\xe8\x91\x9b\xf3\xa0\x84\x80", "\xe8\x91\x9b\xf3\xa0\x84\x80");
}

/* ---- bots --------------------------------------------------------------------------------- */

Test(names, refuses_the_name_the_server_gives_a_bot)
{
    refused_naming("Bot 2 (greedy)", NAME_BOT_LIKE, "bots");
    refused_naming("Bot 3 (random)", NAME_BOT_LIKE, NULL);
}

Test(names, refuses_bot_names_in_other_case_width_spacing_and_lookalikes)
{
    static const char *const bots[] = {
        "bot",
        "BOT 2",
        "  bot2greedy ",
        "Bot-2-(GREEDY)",
        "b0t 4",
        "Greedy bot",
        "random-bot 3",
        "\xef\xbc\xa2\xef\xbd\x8f\xef\xbd\x94 2", /* fullwidth Ｂｏｔ */
        "B\xd0\xbet 2 (greedy)",                  /* Cyrillic о */
        "\xd0\x92\xd0\x9e\xd0\xa2",               /* Cyrillic ВОТ */
        "Bot \xd9\xa2",                           /* Arabic-Indic two */
    };
    for (size_t i = 0; i < sizeof bots / sizeof *bots; i++)
        refused_naming(bots[i], NAME_BOT_LIKE, NULL);
}

Test(names, names_that_merely_contain_bot_are_accepted)
{
    accepted_as("Robot", "Robot");
    accepted_as("Bot Bob", "Bot Bob");
    accepted_as("Botticelli", "Botticelli");
    accepted_as("Abbot 2", "Abbot 2");
    cr_assert_not(name_is_bot_like("Greedy Gus", 10));
}

/* name_key() of a string, for the account name tests. */
static const char *key_of(const char *s, char key[NAMES_KEY_BYTES])
{
    cr_assert(name_key(s, strlen(s), key), "no key for %s", s);
    return key;
}

Test(names, account_keys_are_one_for_names_that_differ_only_in_case_or_width)
{
    char a[NAMES_KEY_BYTES], b[NAMES_KEY_BYTES];
    cr_expect_str_eq(key_of("Ada", a), key_of("ADA", b));
    cr_expect_str_eq(key_of("Ada", a),
                     key_of("\xef\xbc\xa1\xef\xbd\x84\xef\xbd\x81", b)); /* Ａｄａ */
    cr_expect_str_eq(key_of("Stra\xc3\x9f"
                            "e",
                            a),
                     key_of("STRASSE", b));                                /* full folding: ß */
    cr_expect_str_eq(key_of("caf\xc3\xa9", a), key_of("CAFE\xcc\x81", b)); /* é composed or not */
    cr_expect_str_neq(key_of("Ada", a), key_of("Adam", b));
    cr_expect_str_neq(key_of("Ada Lovelace", a), key_of("AdaLovelace", b), "spaces count");
}

/* name_table_key() of a string. */
static const char *table_key_of(const char *s, char key[NAMES_KEY_BYTES])
{
    cr_assert(name_table_key(s, key), "no table key for %s", s);
    return key;
}

Test(names, one_name_a_table_reads_case_width_lookalikes_and_space_runs_as_one)
{
    char a[NAMES_KEY_BYTES], b[NAMES_KEY_BYTES];
    cr_expect_str_eq(table_key_of("Ada", a), table_key_of("aDA", b));
    cr_expect_str_eq(table_key_of("Ada", a),
                     table_key_of("\xef\xbc\xa1\xef\xbd\x84\xef\xbd\x81", b)); /* Ａｄａ */
    cr_expect_str_eq(table_key_of("Ada", a), table_key_of("\xd0\x90"
                                                          "da",
                                                          b)); /* Cyrillic А */
    cr_expect_str_eq(table_key_of("Ada Lee", a), table_key_of("Ada  Lee", b));
    cr_expect_str_eq(table_key_of("Ada Lee", a),
                     table_key_of("Ada\xe3\x80\x80Lee", b)); /* U+3000 */
    cr_expect_str_neq(table_key_of("Ada Lee", a), table_key_of("AdaLee", b), "a space counts");
    cr_expect_str_neq(table_key_of("Ada", a), table_key_of("Adam", b));
}
