#!/bin/bash
# cubin.sh SRC OUT.cubin : the sm_90 cubin of one .cu with the library's flags
cd /work/h-cleanup/build-cuda
/usr/local/cuda/bin/nvcc -DHAY_HAVE_CUDA -DHAY_HAVE_CUDA_SW -DHAY_HAVE_CUDA_SWDB -DHAY_HAVE_OPENCL -DHAY_HAVE_OPENCL_SW -D_GNU_SOURCE --options-file CMakeFiles/haystack_obj.dir/includes_CUDA.rsp -O3 -DNDEBUG -arch=sm_90 -cubin -Xptxas -v -x cu "$1" -o "$2"
