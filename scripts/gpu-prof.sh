source .gpu-bundle/env.sh >/dev/null 2>&1
H=.gpu-bundle/extra/build/apps/heat/tess-heat
export STARPU_SILENT=1 PMIX_MCA_pcompress_base_silence_warning=1
for s in lws eager dmdas; do echo "== sched $s"; STARPU_SCHED=$s $H --device cuda --grid 256,256,256 --order 6 --steps 50 2>&1 | grep "time per"; done
echo "== profile 1 tile"; TESS_PROFILE=1 $H --device cuda --grid 256,256,256 --order 6 --steps 50 2>&1 | grep -v "^step" | head -40
echo "== profile 8 tiles"; TESS_PROFILE=1 $H --device cuda --tiles 8 --grid 256,256,256 --order 6 --steps 10 2>&1 | grep -v "^step" | head -40
echo "== cpu 256^3"; STARPU_NCPU=14 $H --device cpu --grid 256,256,256 --order 6 --steps 10 2>&1 | grep "time per"
echo "== cpu 256^3 8 tiles"; STARPU_NCPU=14 $H --device cpu --tiles 8 --grid 256,256,256 --order 6 --steps 10 2>&1 | grep "time per"
which nsys ncu 2>&1 | head
