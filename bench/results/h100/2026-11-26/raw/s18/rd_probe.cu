// Probe (session 18): host input -> pinned slots -> device, T threads each with its own stream and 2
// pinned slots of C bytes: (1) memcpy from a fresh mmap, (2) memcpy from a mapping already faulted in,
// (3) pread into the slot, (0) the DMA alone from the slots (ceiling). Not part of the project.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  const char*path=argv[1]; int T=atoi(argv[2]); size_t C=(size_t)atol(argv[3])<<20; int reps=argc>4?atoi(argv[4]):3;
  int fd=open(path,O_RDONLY); struct stat st; fstat(fd,&st); size_t n=st.st_size; size_t nb=(n+C-1)/C;
  char*pin; cudaHostAlloc((void**)&pin,2*T*C,cudaHostAllocDefault); memset(pin,1,2*T*C);
  char*dev; cudaMalloc((void**)&dev,n);
  cudaStream_t*s=(cudaStream_t*)malloc(T*sizeof*s); cudaEvent_t*ev=(cudaEvent_t*)malloc(2*T*sizeof*ev);
  for(int i=0;i<T;i++){cudaStreamCreateWithFlags(&s[i],cudaStreamNonBlocking);} for(int i=0;i<2*T;i++) cudaEventCreateWithFlags(&ev[i],cudaEventDisableTiming);
  for(int r=0;r<reps;r++){
    for(int mode=0;mode<4;mode++){
      char*m=NULL; if(mode==1||mode==2){m=(char*)mmap(NULL,n,PROT_READ,MAP_SHARED,fd,0);}
      if(mode==2){volatile char x=0; for(size_t o=0;o<n;o+=4096) x+=m[o];}
      cudaDeviceSynchronize(); double t0=now();
      #pragma omp parallel num_threads(T)
      { int t=omp_get_thread_num(); int k=0;
        for(size_t b=t;b<nb;b+=T,k++){ int sl=t*2+(k&1); char*dst=pin+(size_t)sl*C; size_t o=b*C,len=n-o<C?n-o:C;
          cudaEventSynchronize(ev[sl]);
          if(mode==1||mode==2) memcpy(dst,m+o,len);
          else if(mode==3){size_t d=0; while(d<len){ssize_t g=pread(fd,dst+d,len-d,o+d); if(g<=0)break; d+=g;}}
          cudaMemcpyAsync(dev+o,dst,len,cudaMemcpyHostToDevice,s[t]); cudaEventRecord(ev[sl],s[t]); }
        cudaStreamSynchronize(s[t]); }
      double t1=now(); if(m) munmap(m,n);
      static const char*name[]={"DMA alone (ceiling)","fresh mmap + memcpy","faulted-in mmap + memcpy","pread into pinned"};
      printf("T=%2d chunk=%3zuM  %-26s %6.1f GB/s\n",T,C>>20,name[mode],n/(t1-t0)/1e9);
    }
  }
  return 0;
}
