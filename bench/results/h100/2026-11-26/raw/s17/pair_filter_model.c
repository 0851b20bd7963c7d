// model: candidate rates of a pair-window filter (exact 2-byte windows, L lags over the last L+1 bytes
// of each bucket's P-byte prefix, B buckets) over the text files.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef struct { uint8_t s[8]; int len, P; uint64_t key; int b; } lit;
static int cmp(const void *a, const void *b) { const lit *x=a,*y=b; if (x->P!=y->P) return x->P-y->P; return x->key<y->key?-1:x->key>y->key; }
int main(int argc, char **argv) {
    int B = atoi(argv[2]), L = atoi(argv[3]);
    FILE *f = fopen(argv[1], "r"); char line[70000]; lit *ls = malloc(40000 * sizeof *ls); int n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t m = strlen(line); if (m && line[m-1]=='\n') line[--m]=0;
        uint8_t buf[70000]; int k = 0;
        for (size_t i = 0; i < m; i++) { if (line[i]=='\\' && line[i+1]=='x') { unsigned v; sscanf(line+i+2, "%2x", &v); buf[k++]=v; i+=3; } else buf[k++]=line[i]; }
        if (k < 3) continue;
        lit *l = &ls[n++]; l->len = k; l->P = k < 6 ? k : 6; memset(l->s, 0, 8); memcpy(l->s, buf, l->P);
        l->key = 0; for (int j = 0; j < 8; j++) l->key = l->key << 8 | l->s[j];
    }
    qsort(ls, n, sizeof *ls, cmp);
    // buckets: proportional by P as the build does
    int cnt[7]={0}, nb[7]={0}, used=0; for (int i=0;i<n;i++) cnt[ls[i].P]++;
    for (int l=3;l<=6;l++) if (cnt[l]) { nb[l]=1; used++; }
    while (used < B) { int best=0; for (int l=3;l<=6;l++) if (nb[l] && (!best || (long)cnt[l]*nb[best] > (long)cnt[best]*nb[l])) best=l; nb[best]++; used++; }
    int bP[16]; int b0=0, i=0; for (int l=3;l<=6;l++) { for (int k=0;k<nb[l];k++) bP[b0+k]=l; for (int j=0;j<cnt[l];j++,i++) ls[i].b = b0 + j*nb[l]/cnt[l]; b0+=nb[l]; }
    // W[p][key] bitmask of buckets with pair ending p bytes before prefix end
    static uint16_t W[4][65536]; memset(W,0,sizeof W);
    for (int i=0;i<n;i++) for (int p=0;p<L && p<=ls[i].P-2;p++) { int e=ls[i].P-1-p; W[p][ls[i].s[e-1] | ls[i].s[e]<<8] |= 1u<<ls[i].b; }
    uint16_t dc[4]={0}; for (int b=0;b<B;b++) for (int p=0;p<L;p++) if (p > bP[b]-2) dc[p] |= 1u<<b;
    // exact prefixes: hash set of (P, 6-byte) 
    size_t hs = 1<<20; uint64_t *H = calloc(hs, 8);
    for (int i=0;i<n;i++) { uint64_t v = ls[i].P; for (int j=0;j<ls[i].P;j++) v = v<<8 | ls[i].s[j]; v |= 1ull<<63; size_t h=(v*0x9E3779B97F4A7C15ull)>>44; while (H[h] && H[h]!=v) h=(h+1)&(hs-1); H[h]=v; }
    // text
    size_t tl = 0, cap = 1<<25; uint8_t *t = malloc(cap);
    for (int a = 4; a < argc; a++) { FILE *g = fopen(argv[a], "rb"); tl += fread(t+tl, 1, cap-tl, g); fclose(g); }
    long cands=0, bc=0, exact=0;
    for (size_t i = 8; i < tl; i++) {
        uint16_t m = (1u<<B)-1;
        for (int p=0;p<L;p++) m &= W[p][t[i-p-1] | t[i-p]<<8] | dc[p];
        if (m) { cands++; bc += __builtin_popcount(m); }
        for (int b=0;b<B;b++) if (m>>b&1) { int P=bP[b]; uint64_t v=P; for (int j=0;j<P;j++) v=v<<8|t[i-P+1+j]; v|=1ull<<63; size_t h=(v*0x9E3779B97F4A7C15ull)>>44; while (H[h] && H[h]!=v) h=(h+1)&(hs-1); if (H[h]==v) { exact++; } }
    }
    printf("%s n=%d B=%d L=%d: cand/byte %.4f bucket-cands/byte %.4f exact-prefix(bucket)/byte %.4f\n", argv[1], n, B, L, (double)cands/tl, (double)bc/tl, (double)exact/tl);
}
