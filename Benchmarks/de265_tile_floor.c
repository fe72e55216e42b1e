// The floor of a HEIC tile's decode: one tile's NAL units (from a one-tile
// HEIC that `cropkit crop --snap-to-blocks` wrote) pushed straight into
// libde265 (dlopen of libde265.so.0), no libheif, timed five times.
//   cropkit crop pug.heic --pixels 2060,1540,300,300 --snap-to-blocks -o one.heic
//   gcc -O2 -o de265_tile_floor Benchmarks/de265_tile_floor.c -ldl && ./de265_tile_floor one.heic
// A measuring probe for Benchmarks/RESULTS.md, not part of CropKit: it finds
// the first hvcC and mdat boxes by their names and trusts the file.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
typedef void* (*new_fn)(void); typedef int (*push_fn)(void*, const void*, int, int64_t, void*);
typedef int (*flush_fn)(void*); typedef int (*decode_fn)(void*, int*); typedef const void* (*next_fn)(void*);
typedef const uint8_t* (*plane_fn)(const void*, int, int*); typedef int (*wh_fn)(const void*, int);
typedef int (*free_fn)(void*); typedef int (*threads_fn)(void*, int); typedef void (*release_fn)(void*, const void*);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(int argc,char**argv){
 FILE*f=fopen(argv[1],"rb");fseek(f,0,2);long n=ftell(f);fseek(f,0,0);uint8_t*b=malloc(n);fread(b,1,n,f);fclose(f);
 uint8_t*h=NULL,*m=NULL;long mlen=0;
 for(long i=4;i<n-4;i++){ if(!h&&!memcmp(b+i,"hvcC",4))h=b+i+4; if(!m && !memcmp(b+i,"mdat",4)){m=b+i+4;mlen=n-(i+4);} }
 double t0=now(); void*lib=dlopen("libde265.so.0",RTLD_NOW); double t1=now();
 new_fn dnew=dlsym(lib,"de265_new_decoder"); push_fn push=dlsym(lib,"de265_push_NAL"); flush_fn flush=dlsym(lib,"de265_flush_data");
 decode_fn dec=dlsym(lib,"de265_decode"); next_fn next=dlsym(lib,"de265_get_next_picture"); plane_fn plane=dlsym(lib,"de265_get_image_plane");
 wh_fn width=dlsym(lib,"de265_get_image_width"); free_fn dfree=dlsym(lib,"de265_free_decoder"); threads_fn th=dlsym(lib,"de265_start_worker_threads");
 for(int rep=0;rep<5;rep++){
 double a=now(); void*ctx=dnew(); if(argc>2) th(ctx, atoi(argv[2]));
 uint8_t*p=h+22; int arrays=*p++; for(int k=0;k<arrays;k++){p++; int cnt=p[0]<<8|p[1]; p+=2; for(int j=0;j<cnt;j++){int len=p[0]<<8|p[1];p+=2; push(ctx,p,len,0,0); p+=len;}}
 long o=0; while(o+4<=mlen){ long len=(long)m[o]<<24|m[o+1]<<16|m[o+2]<<8|m[o+3]; if(len<=0||o+4+len>mlen) break; o+=4; push(ctx,m+o,(int)len,0,0); o+=len; }
 flush(ctx); int more=1; const void*img=NULL; int guard=0; while(more && guard++<100000){ int err=dec(ctx,&more); if(!img) img=next(ctx); if(err && !more) break; } if(!img) img=next(ctx); if(!img){printf("no image\n");return 1;}
 int stride; const uint8_t*y=plane(img,0,&stride);
 double c=now(); printf("decode %.2f ms width %d first %d\n", c-a, width(img,0), y[0]); dfree(ctx);}
 printf("dlopen %.2f\n",t1-t0);}
