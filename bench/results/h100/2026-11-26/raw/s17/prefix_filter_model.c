// model2: candidates per byte of fdr-gpu-like filters: hashed W-byte windows (W=3), L lags, B buckets,
// prefixes of up to PMAX bytes, table of 2^domain keys; plus exact prefix hits per byte.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef struct { uint8_t s[16]; int len, P; uint64_t key; int b; } lit;
static int PMAX;
static int cmp(const void *a, const void *b) { const lit *x=a,*y=b; if (x->P!=y->P) return x->P-y->P; return x->key<y->key?-1:x->key>y->key; }
static uint32_t hkey(uint32_t x, int domain) { return ((x & 0xffffff) * (2654435761u << 8)) >> (32 - domain); }
int main(int argc, char **argv) {
    int B = atoi(argv[2]), L = atoi(argv[3]), domain = atoi(argv[4]); PMAX = L + 2;
    FILE *f = fopen(argv[1], "r"); static char line[70000]; lit *ls = malloc(40000 * sizeof *ls); int n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t m = strlen(line); if (m && line[m-1]=='\n') line[--m]=0;
        static uint8_t buf[70000]; int k = 0;
        for (size_t i = 0; i < m; i++) { if (line[i]=='\\' && line[i+1]=='x') { unsigned v; sscanf(line+i+2, "%2x", &v); buf[k++]=v; i+=3; } else buf[k++]=line[i]; }
        if (k < 3) continue;
        lit *l = &ls[n++]; l->len = k; l->P = k < PMAX ? k : PMAX; memset(l->s, 0, 16); memcpy(l->s, buf, l->P);
        l->key = 0; for (int j = 0; j < 8; j++) l->key = l->key << 8 | l->s[j];
    }
    qsort(ls, n, sizeof *ls, cmp);
    int cnt[17]={0}, nb[17]={0}, used=0; for (int i=0;i<n;i++) cnt[ls[i].P]++;
    for (int l=3;l<=PMAX;l++) if (cnt[l]) { nb[l]=1; used++; }
    if (used > B) { fprintf(stderr, "more lengths than buckets\n"); }
    while (used < B) { int best=0; for (int l=3;l<=PMAX;l++) if (nb[l] && (!best || (long)cnt[l]*nb[best] > (long)cnt[best]*nb[l])) best=l; nb[best]++; used++; }
    int bP[64]; int b0=0, i=0; for (int l=3;l<=PMAX;l++) { for (int k=0;k<nb[l];k++) bP[b0+k]=l; for (int j=0;j<cnt[l];j++,i++) ls[i].b = b0 + j*nb[l]/cnt[l]; b0+=nb[l]; }
    // T[p][key]: bucket mask of windows ending p bytes before prefix end
    int K = 1 << domain; uint64_t **T = malloc(L * sizeof *T); for (int p=0;p<L;p++) T[p] = calloc(K, 8);
    for (int i=0;i<n;i++) for (int p=0;p<L && p<=ls[i].P-3;p++) { int e=ls[i].P-1-p; uint32_t x = ls[i].s[e-2] | ls[i].s[e-1]<<8 | ls[i].s[e]<<16; T[p][hkey(x,domain)] |= 1ull<<ls[i].b; }
    uint64_t dc[64]={0}; for (int b=0;b<B;b++) for (int p=0;p<L;p++) if (p > bP[b]-3) dc[p] |= 1ull<<b;
    size_t hs = 1<<21; uint64_t *H1 = calloc(hs, 8), *H2 = calloc(hs, 8);
    for (int i=0;i<n;i++) { uint64_t v=0, w=ls[i].P; for (int j=0;j<ls[i].P;j++) v = v<<8 | ls[i].s[j]; uint64_t h=((v^w<<59)*0x9E3779B97F4A7C15ull)>>43; while (H1[h] && (H1[h]!=v || H2[h]!=w)) h=(h+1)&(hs-1); H1[h]=v; H2[h]=w; }
    size_t tl = 0, cap = 1<<25; uint8_t *t = malloc(cap);
    for (int a = 5; a < argc; a++) { FILE *g = fopen(argv[a], "rb"); tl += fread(t+tl, 1, cap-tl, g); fclose(g); }
    long cands=0, bc=0, exact=0;
    for (size_t i = 16; i < tl; i++) {
        uint64_t m = B == 64 ? ~0ull : (1ull<<B)-1;
        for (int p=0;p<L;p++) { size_t e=i-p; uint32_t x = t[e-2] | t[e-1]<<8 | t[e]<<16; m &= T[p][hkey(x,domain)] | dc[p]; }
        if (m) { cands++; bc += __builtin_popcountll(m); }
        for (int b=0;b<B;b++) if (m>>b&1) { int P=bP[b]; uint64_t v=0,w=P; for (int j=0;j<P;j++) v=v<<8|t[i-P+1+j]; uint64_t h=((v^w<<59)*0x9E3779B97F4A7C15ull)>>43; while (H1[h] && (H1[h]!=v || H2[h]!=w)) h=(h+1)&(hs-1); if (H1[h]==v && H2[h]==w && v) exact++; }
    }
    printf("%-16s B=%d L=%d domain=%d (prefix <= %d): cand/byte %.4f bucket-cands %.4f exact-prefix %.4f\n", strrchr(argv[1],'/')+1, B, L, domain, PMAX, (double)cands/tl, (double)bc/tl, (double)exact/tl);
}
