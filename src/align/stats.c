/*
 * stats.c - Karlin-Altschul statistics for local alignment scores: the
 * published gapped parameters of the standard scoring systems, ungapped
 * parameters computed from a matrix and background frequencies, BLAST's
 * length adjustment, E-values and bit scores.
 *
 * Methods:
 *   Karlin S, Altschul SF.  Methods for assessing the statistical
 *     significance of molecular sequence features by using general scoring
 *     schemes.  PNAS 87:2264-2268 (1990): lambda, H and K of ungapped
 *     scores (the series for K is their eq. for lattice scores).
 *   Altschul SF, Gish W.  Local alignment statistics.  Methods Enzymol
 *     266:460-480 (1996), and Altschul SF, Bundschuh R, Olsen R, Hwa T.  The
 *     estimation of statistical parameters for local alignment score
 *     distributions.  NAR 29:351-361 (2001): gapped lambda, K, H and the
 *     alpha, beta of the length correction, estimated by simulation.
 * The published parameters themselves are data in stats_tables.c, as
 * NCBI BLAST+ ships them; the code is this library's own.
 */
#include "align_internal.h"
#include "stats_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Robinson & Robinson (PNAS 88:8880, 1991) amino-acid frequencies, per
 * 1000 residues: the background BLAST uses for standard matrices. */
static const char rr_letters[] = "ACDEFGHIKLMNPQRSTVWY";
static const double rr_freq[20] = {
    78.05, 19.25, 53.64, 62.95, 38.56, 73.77, 21.99, 51.42, 57.44, 90.19,
    22.43, 44.87, 52.03, 42.64, 51.29, 71.20, 58.41, 64.41, 13.30, 32.16
};

/* ------------------------------------------------------------------------
 * Ungapped parameters from a score distribution (Karlin & Altschul 1990)
 * ---------------------------------------------------------------------- */

static int gcd(int a, int b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* sum p(s) e^(lambda s) - 1: zero at the lambda we want. */
static double mgf_minus_one(const double *p, int lo, int hi, double lambda)
{
    double sum = 0;
    for (int s = lo; s <= hi; s++)
        if (p[s - lo] > 0)
            sum += p[s - lo] * exp(lambda * s);
    return sum - 1;
}

/*
 * lambda, H and K of scores lo..hi (lo < 0 < hi, negative mean) with
 * probabilities p, in gcd units (every score with p > 0 is a multiple of
 * 1 here, and their gcd is 1).  K from Karlin & Altschul's series
 *   K = lambda e^(-2 sigma) / (H (1 - e^(-lambda))),
 *   sigma = sum_k 1/k (E[e^(lambda S_k); S_k < 0] + P(S_k >= 0)),
 * S_k the sum of k independent scores.  Mass of S_k far below zero (where
 * e^(lambda s) < e^-40) is dropped: it cannot come back above zero with a
 * probability larger than that.
 */
static hay_status ungapped_params(const double *p, int lo, int hi,
                                  double *lambda_out, double *H_out,
                                  double *K_out)
{
    double mean = 0;
    for (int s = lo; s <= hi; s++)
        mean += s * p[s - lo];
    if (mean >= 0 || hi <= 0)
        return HAY_ERR_UNSUPPORTED;
    /* The root: mgf - 1 < 0 just above 0, > 0 for large lambda. */
    double a = 0, b = 0.5;
    while (mgf_minus_one(p, lo, hi, b) <= 0) {
        a = b;
        b *= 2;
        if (b > 1e6)
            return HAY_ERR_UNSUPPORTED;
    }
    for (int it = 0; it < 200 && b - a > 1e-15 * b; it++) {
        double c = 0.5 * (a + b);
        if (mgf_minus_one(p, lo, hi, c) <= 0)
            a = c;
        else
            b = c;
    }
    double lambda = 0.5 * (a + b);
    double H = 0;
    for (int s = lo; s <= hi; s++)
        if (p[s - lo] > 0)
            H += p[s - lo] * s * exp(lambda * s);
    H *= lambda;
    if (!(H > 0))
        return HAY_ERR_UNSUPPORTED;

    /* Distribution of S_k on [floor, k*hi], floor = -cut. */
    int cut = (int)ceil(40.0 / lambda) + (hi - lo);
    size_t cap = (size_t)cut + 1 + (size_t)hi * 400 + 1;
    double *cur = calloc(cap, sizeof *cur), *next = calloc(cap, sizeof *next);
    if (!cur || !next) {
        free(cur);
        free(next);
        return HAY_ERR_NOMEM;
    }
    /* index i holds score i - cut */
    cur[cut] = 1.0;
    int top = 0;                      /* highest score with mass */
    double sigma = 0;
    uint64_t work = 0;
    for (int k = 1; k <= 400; k++) {
        int ntop = top + hi;
        memset(next, 0, (size_t)(ntop + cut + 1) * sizeof *next);
        for (int i = 0; i <= top + cut; i++) {
            double w = cur[i];
            if (w == 0)
                continue;
            for (int s = lo; s <= hi; s++) {
                double q = p[s - lo];
                if (q == 0)
                    continue;
                int j = i + s;
                if (j >= 0)
                    next[j] += w * q;
            }
        }
        work += (uint64_t)(top + cut + 1) * (uint64_t)(hi - lo + 1);
        top = ntop;
        double inner = 0;
        for (int i = 0; i <= top + cut; i++) {
            int s = i - cut;
            if (next[i] > 0)
                inner += s < 0 ? next[i] * exp(lambda * s) : next[i];
        }
        sigma += inner / k;
        double *t = cur;
        cur = next;
        next = t;
        if (inner / k < 1e-10 * sigma || work > 400000000u)
            break;
    }
    free(cur);
    free(next);
    *lambda_out = lambda;
    *H_out = H;
    *K_out = lambda * exp(-2 * sigma) / (H * -expm1(-lambda));
    return HAY_OK;
}

/* The standard background of the scoring's alphabet: Robinson & Robinson
 * for proteins (letters outside the 20 get 0), 1/4 for A, C, G, T. */
static void default_freqs(const hay_align_scoring *s, double *f)
{
    double total = 0;
    for (int a = 0; a < s->alpha; a++) {
        f[a] = 0;
        if (s->dna)
            f[a] = a < 4 ? 0.25 : 0;
        else {
            const char *c = strchr(rr_letters, s->letters[a]);
            if (c && s->letters[a])
                f[a] = rr_freq[c - rr_letters];
        }
        total += f[a];
    }
    for (int a = 0; a < s->alpha; a++)
        f[a] = total > 0 ? f[a] / total : 0;
}

hay_status hay_align_stats_ungapped(const hay_align_scoring *s,
                                    const double *freqs, hay_align_stats *out)
{
    if (!s || !out)
        return HAY_ERR_INVALID;
    memset(out, 0, sizeof *out);
    double f[HAY_ALIGN_MAX_ALPHA];
    if (freqs) {
        double total = 0;
        for (int a = 0; a < s->alpha; a++) {
            if (!(freqs[a] >= 0))
                return HAY_ERR_INVALID;
            total += freqs[a];
        }
        if (!(total > 0))
            return HAY_ERR_INVALID;
        for (int a = 0; a < s->alpha; a++)
            f[a] = freqs[a] / total;
    } else
        default_freqs(s, f);
    /* The score distribution in units of the scores' gcd. */
    int lo = 0, hi = 0, g = 0;
    for (int a = 0; a < s->alpha; a++)
        for (int b = 0; b < s->alpha; b++)
            if (f[a] * f[b] > 0) {
                int v = s->matrix[a * s->alpha + b];
                if (v < lo)
                    lo = v;
                if (v > hi)
                    hi = v;
                g = gcd(g, v);
            }
    if (g == 0 || lo >= 0 || hi <= 0)
        return HAY_ERR_UNSUPPORTED;
    lo /= g;
    hi /= g;
    double *p = calloc((size_t)(hi - lo + 1), sizeof *p);
    if (!p)
        return HAY_ERR_NOMEM;
    for (int a = 0; a < s->alpha; a++)
        for (int b = 0; b < s->alpha; b++)
            p[s->matrix[a * s->alpha + b] / g - lo] += f[a] * f[b];
    double lambda, H, K;
    hay_status st = ungapped_params(p, lo, hi, &lambda, &H, &K);
    free(p);
    if (st != HAY_OK)
        return st;
    out->lambda = lambda / g;
    out->K = K;
    out->H = H;
    /* Ungapped length correction: l = ln(K m n) / H (beta 0), i.e.
     * alpha / lambda = 1 / H, as BLAST uses for ungapped parameters. */
    out->alpha = out->lambda / H;
    out->beta = 0;
    out->kind = HAY_ALIGN_STATS_COMPUTED;
    snprintf(out->source, sizeof out->source,
             "computed ungapped Karlin-Altschul parameters of %s with %s "
             "background frequencies", s->name,
             freqs ? "the caller's" : s->dna ? "uniform"
                                             : "Robinson & Robinson");
    return HAY_OK;
}

/* ------------------------------------------------------------------------
 * Looking up published parameters
 * ---------------------------------------------------------------------- */

/* Whether s has the same scores as built-in matrix `key` on the 20
 * standard amino acids (so a copy read from a file counts too). */
static int same_matrix(const hay_align_scoring *s, const char *key)
{
    hay_align_scoring *b;
    if (hay_align_scoring_builtin(key, 1, 1, &b) != HAY_OK)
        return 0;
    int same = 1;
    for (int i = 0; i < 20 && same; i++)
        for (int j = 0; j < 20 && same; j++) {
            int si = s->map[(unsigned char)rr_letters[i]];
            int sj = s->map[(unsigned char)rr_letters[j]];
            int bi = b->map[(unsigned char)rr_letters[i]];
            int bj = b->map[(unsigned char)rr_letters[j]];
            if (si < 0 || sj < 0 || bi < 0 || bj < 0 ||
                s->matrix[si * s->alpha + sj] != b->matrix[bi * b->alpha + bj])
                same = 0;
        }
    hay_align_scoring_free(b);
    return same;
}

static void set_row(hay_align_stats *out, const ka_row *r, double scale)
{
    out->lambda = r->lambda / scale;
    out->K = r->K;
    out->H = r->H;
    out->alpha = r->alpha / scale;
    out->beta = r->beta;
}

hay_status hay_align_stats_get(const hay_align_scoring *s,
                               hay_align_stats *out)
{
    if (!s || !out)
        return HAY_ERR_INVALID;
    memset(out, 0, sizeof *out);
    /* BLAST's existence and extension: open = existence + extension. */
    int ext = s->extend, exist = s->open - s->extend;
    if (s->dna) {
        int match = s->matrix[0], mismatch = s->matrix[1];
        int g = gcd(match, mismatch);
        for (const ka_dna *d = hay_ka_dna_tables; d->rows; d++) {
            if (d->reward * g != match || d->penalty * g != mismatch)
                continue;
            for (const ka_row *r = d->rows; r->lambda > 0; r++)
                if (r->existence * g == exist && r->extension * g == ext) {
                    set_row(out, r, g);
                    out->round_down = d->round_down && g == 1;
                    out->kind = HAY_ALIGN_STATS_PUBLISHED;
                    snprintf(out->source, sizeof out->source,
                             "published gapped parameters (Altschul et al. "
                             "2001; NCBI BLAST blast_stat.c) for match %d "
                             "mismatch %d, BLAST gap costs %d/%d",
                             match, mismatch, exist, ext);
                    return HAY_OK;
                }
            if (exist >= d->max_existence * g && ext >= d->max_extension * g) {
                hay_status st = hay_align_stats_ungapped(s, NULL, out);
                if (st == HAY_OK)
                    snprintf(out->source, sizeof out->source,
                             "computed ungapped parameters (uniform "
                             "background): BLAST gap costs %d/%d are above "
                             "the published ones for match %d mismatch %d, "
                             "where gaps no longer change them", exist, ext,
                             match, mismatch);
                return st;
            }
        }
    } else {
        for (const ka_matrix *m = hay_ka_protein_tables; m->key; m++) {
            if (!same_matrix(s, m->key))
                continue;
            int max_exist = 0, max_ext = 0;
            for (const ka_row *r = m->rows + 1; r->lambda > 0; r++) {
                if (r->existence == exist && r->extension == ext) {
                    set_row(out, r, 1);
                    out->kind = HAY_ALIGN_STATS_PUBLISHED;
                    /* Spouge's correction, its intercepts from the gapped
                     * and ungapped slopes as BLAST derives them. */
                    double G = exist + ext;
                    out->fsc = 1;
                    out->fsc_a = r->alpha;
                    out->fsc_b = 2 * G * (m->rows[0].alpha - r->alpha);
                    out->fsc_alpha = r->alpha_v;
                    out->fsc_beta = 2 * G * (m->rows[0].alpha_v - r->alpha_v);
                    out->fsc_sigma = r->sigma;
                    out->fsc_tau = 2 * G * (m->rows[0].alpha_v - r->sigma);
                    snprintf(out->source, sizeof out->source,
                             "published gapped parameters (Altschul et al. "
                             "2001; NCBI BLAST blast_stat.c) for %s, BLAST "
                             "gap costs %d/%d", s->name, exist, ext);
                    return HAY_OK;
                }
                if (r->existence > max_exist)
                    max_exist = r->existence;
                if (r->extension > max_ext)
                    max_ext = r->extension;
            }
            if (exist >= max_exist && ext >= max_ext) {
                set_row(out, m->rows, 1);
                out->kind = HAY_ALIGN_STATS_UNGAPPED;
                snprintf(out->source, sizeof out->source,
                         "published ungapped parameters for %s: BLAST gap "
                         "costs %d/%d are above the published gapped ones",
                         s->name, exist, ext);
                return HAY_OK;
            }
            break;
        }
    }
    hay_status st = hay_align_stats_ungapped(s, NULL, out);
    if (st == HAY_OK) {
        size_t n = strlen(out->source);
        snprintf(out->source + n, sizeof out->source - n,
                 "; no published gapped parameters for BLAST gap costs "
                 "%d/%d, so E-values of gapped alignments are too small",
                 exist, ext);
    }
    return st;
}

/* ------------------------------------------------------------------------
 * Length adjustment, E-values, bit scores
 * ---------------------------------------------------------------------- */

static int32_t effective_score(const hay_align_stats *st, int32_t score)
{
    return st->round_down && score > 0 ? score & ~1 : score;
}

double hay_align_bitscore(const hay_align_stats *st, int32_t score)
{
    if (!st || !(st->lambda > 0) || !(st->K > 0))
        return 0;
    /* Not rounded down to even: BLAST rounds for E-values only (blastn
     * 2.12, 2/-3: raw 595 is 537 bits, not 594's 536). */
    return (st->lambda * score - log(st->K)) / 0.69314718055994530942;
}

/*
 * Altschul & Gish's finite-length correction as BLAST computes it: the
 * length adjustment l is the largest integer with
 *     l <= (alpha / lambda) ln(K (m - l)(n - N l)) + beta,
 * m the query length, n the database's residues, N its sequences, and with
 * K (m - l)(n - N l) >= max(m, n) so the space never collapses.  The right
 * side falls as l grows, so the integers that satisfy it are 0 .. l: found
 * by bisection.
 */
static double adj_rhs(const hay_align_stats *st, double m, double n,
                      double N, double l)
{
    return st->alpha / st->lambda * (log(st->K) + log((m - l) * (n - N * l))) +
           st->beta;
}

double hay_align_search_space(const hay_align_stats *st, uint64_t query_len,
                              uint64_t db_residues, uint64_t db_sequences,
                              uint64_t *length_adjustment)
{
    if (length_adjustment)
        *length_adjustment = 0;
    if (!st || !(st->lambda > 0) || !(st->K > 0) || !query_len || !db_residues)
        return 0;
    double m = (double)query_len, n = (double)db_residues;
    double N = db_sequences ? (double)db_sequences : 1.0;
    /* The largest l with K (m - l)(n - N l) >= max(m, n): the smaller root
     * of N l^2 - (m N + n) l + (m n - max(m, n) / K) = 0. */
    double a = N, b = m * N + n, c = m * n - (m > n ? m : n) / st->K;
    uint64_t l = 0;
    if (c > 0) {
        double lmax = 2 * c / (b + sqrt(b * b - 4 * a * c));
        uint64_t hi = (uint64_t)floor(lmax), lo = 0;
        if (adj_rhs(st, m, n, N, 0) < 0)
            hi = 0;
        else if (adj_rhs(st, m, n, N, (double)hi) >= (double)hi)
            lo = hi;
        /* invariant: lo satisfies, hi does not (unless lo == hi) */
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (adj_rhs(st, m, n, N, (double)mid) >= (double)mid)
                lo = mid;
            else
                hi = mid;
        }
        l = lo;
    }
    if (length_adjustment)
        *length_adjustment = l;
    double me = m - (double)l, ne = n - N * (double)l;
    if (me < 1)
        me = 1;
    if (ne < 1)
        ne = 1;
    return me * ne;
}

double hay_align_evalue_space(const hay_align_stats *st, int32_t score,
                              double search_space)
{
    if (!st || !(st->lambda > 0) || !(st->K > 0))
        return 0;
    return search_space * st->K *
           exp(-st->lambda * effective_score(st, score));
}

double hay_align_evalue(const hay_align_stats *st, int32_t score,
                        uint64_t query_len, uint64_t db_residues,
                        uint64_t db_sequences)
{
    return hay_align_evalue_space(
        st, score,
        hay_align_search_space(st, query_len, db_residues, db_sequences, NULL));
}

/* ------------------------------------------------------------------------
 * Fitting lambda and K to a search's own scores
 * ---------------------------------------------------------------------- */

/*
 * Maximum likelihood estimates of the Gumbel distribution with a length
 * correction (Mott, Bull Math Biol 54:59, 1992; Pearson, J Mol Biol
 * 276:71, 1998, as ssearch fits): P(S >= x) = 1 - exp(-K m n_i e^(-lambda
 * x)) for a target of n_i residues.  For a given lambda, K's estimate is
 * N / (m sum n_i e^(-lambda S_i)); lambda solves
 *     1/lambda - mean(S) + sum w_i S_i / sum w_i = 0,
 * w_i = n_i e^(-lambda S_i),
 * whose left side falls as lambda grows: found by bisection.  Scores enter
 * relative to their minimum so that no weight underflows.
 */
static int fit_once(const int32_t *scores, const uint64_t *lens,
                    const unsigned char *use, size_t n, double m,
                    double *lambda, double *logK)
{
    size_t cnt = 0;
    double mean = 0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < n; i++)
        if (use[i]) {
            cnt++;
            mean += scores[i];
            if (scores[i] < lo)
                lo = scores[i];
            if (scores[i] > hi)
                hi = scores[i];
        }
    if (cnt == 0 || lo == hi)
        return -1;
    mean /= (double)cnt;
    double a = 0, b = 1;
    for (;;) {
        /* g(b) */
        double sw = 0, sws = 0;
        for (size_t i = 0; i < n; i++)
            if (use[i]) {
                double w = (double)lens[i] * exp(-b * (scores[i] - lo));
                sw += w;
                sws += w * scores[i];
            }
        if (1 / b - mean + sws / sw < 0)
            break;
        a = b;
        b *= 2;
        if (b > 1e6)
            return -1;
    }
    for (int it = 0; it < 100; it++) {
        double c = 0.5 * (a + b), sw = 0, sws = 0;
        for (size_t i = 0; i < n; i++)
            if (use[i]) {
                double w = (double)lens[i] * exp(-c * (scores[i] - lo));
                sw += w;
                sws += w * scores[i];
            }
        if (1 / c - mean + sws / sw > 0)
            a = c;
        else
            b = c;
    }
    double l = 0.5 * (a + b), sw = 0;
    for (size_t i = 0; i < n; i++)
        if (use[i])
            sw += (double)lens[i] * exp(-l * (scores[i] - lo));
    *lambda = l;
    *logK = log((double)cnt) - log(m) + l * lo - log(sw);
    return 0;
}

hay_status hay_align_stats_fit(const int32_t *scores,
                               const uint64_t *target_lens, size_t n,
                               uint64_t query_len, hay_align_stats *out)
{
    if (!out)
        return HAY_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!scores || !target_lens || !query_len)
        return HAY_ERR_INVALID;
    if (n < HAY_ALIGN_FIT_MIN)
        return HAY_ERR_UNSUPPORTED;
    unsigned char *use = malloc(n);
    if (!use)
        return HAY_ERR_NOMEM;
    memset(use, 1, n);
    double m = (double)query_len, lambda = 0, logK = 0;
    size_t used = n;
    /* Related sequences are not chance: scores whose own pair-wise E-value
     * is below 1e-3 leave the fit, which is then redone (a few rounds). */
    for (int round = 0; round < 5; round++) {
        if (fit_once(scores, target_lens, use, n, m, &lambda, &logK)) {
            free(use);
            return HAY_ERR_UNSUPPORTED;
        }
        size_t now = 0;
        int changed = 0;
        for (size_t i = 0; i < n; i++) {
            double le = logK + log(m * (double)target_lens[i]) -
                        lambda * scores[i];
            unsigned char u = le > log(1e-3);
            changed |= u != use[i];
            use[i] = u;
            now += u;
        }
        used = now;
        if (!changed)
            break;
        if (used < HAY_ALIGN_FIT_MIN) {
            free(use);
            return HAY_ERR_UNSUPPORTED;
        }
    }
    free(use);
    out->lambda = lambda;
    out->K = exp(logK);
    out->kind = HAY_ALIGN_STATS_FITTED;
    snprintf(out->source, sizeof out->source,
             "fitted to this search's scores (maximum likelihood Gumbel "
             "with length correction, as ssearch does): %zu scores, %zu "
             "set aside as related", used, n - used);
    return HAY_OK;
}

/* ------------------------------------------------------------------------
 * Spouge's finite-size correction
 * ---------------------------------------------------------------------- */

/*
 * The E-value of one query-target pair with the finite-size correction of
 * Park, Sheetlin, Ma, Madden & Spouge (2012), scaled to the database as
 * BLAST+ does for blastp by default.  An alignment scoring y spans on
 * average a y + b residues of each sequence, with variance
 * max(2 alpha_v / lambda, alpha_v y + beta_v) and covariance
 * max(2 sigma / lambda, sigma y + tau); the expected number of places it
 * fits in sequences of lengths m and n replaces m n:
 *   area = p(m) p(n) + c(y) P(m) P(n),
 *   P(l) = Phi(z), p(l) = (l - a y - b) Phi(z) + sd phi(z),
 *   z = (l - a y - b) / sd,
 * and E = area K e^(-lambda y) db_residues / n.
 */
double hay_align_evalue_fsc(const hay_align_stats *st, int32_t score,
                            uint64_t query_len, uint64_t target_len,
                            uint64_t db_residues)
{
    if (!st || !st->fsc || !query_len || !target_len)
        return -1;
    double y = score, lambda = st->lambda;
    double len[2] = { (double)query_len, (double)target_len }, P[2], p[2];
    for (int k = 0; k < 2; k++) {
        double left = len[k] - (st->fsc_a * y + st->fsc_b);
        double var = 2 * st->fsc_alpha / lambda;
        if (st->fsc_alpha * y + st->fsc_beta > var)
            var = st->fsc_alpha * y + st->fsc_beta;
        double sd = sqrt(var), z = left / sd;
        P[k] = 0.5 * erfc(-z / sqrt(2.0));
        /* 1 / sqrt(2 pi): the normal density's constant */
        p[k] = left * P[k] + sd * exp(-0.5 * z * z) * 0.39894228040143267794;
    }
    double cov = 2 * st->fsc_sigma / lambda;
    if (st->fsc_sigma * y + st->fsc_tau > cov)
        cov = st->fsc_sigma * y + st->fsc_tau;
    double area = p[0] * p[1] + cov * P[0] * P[1];
    double scale = db_residues ? (double)db_residues / len[1] : 1.0;
    return area * st->K * exp(-lambda * y) * scale;
}
