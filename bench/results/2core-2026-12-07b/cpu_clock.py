import subprocess, sys, statistics, os
# usage: python3 cpu_clock.py WORKLOAD REPS BIN...
w=sys.argv[1]; reps=int(sys.argv[2]); bins=sys.argv[3:]
modes={'plain':[], 'checked':['--races','--uninit']}
res={(b,m):[] for b in bins for m in modes}
def cpu(b,args):
    out=subprocess.run(['perf','stat','-x,','-e','task-clock',b,'run',w,'--threads','1']+args,stdout=subprocess.DEVNULL,stderr=subprocess.PIPE,text=True).stderr
    for l in out.splitlines():
        if 'task-clock' in l: return float(l.split(',')[0])
for r in range(reps):
    for b in bins:
        for m,a in modes.items():
            res[(b,m)].append(cpu(b,a))
for b in bins:
    p=statistics.median(res[(b,'plain')]); c=statistics.median(res[(b,'checked')])
    print(f"{b}: plain {p:.0f} ms, checked {c:.0f} ms, ratio {c/p:.3f}  (plain {' '.join('%.0f'%x for x in res[(b,'plain')])}; checked {' '.join('%.0f'%x for x in res[(b,'checked')])})")
