# Cases where Firth's penalised log-likelihood has more than one local
# maximum, with the global one found by many starts (Nelder-Mead, then
# BFGS polish), and the local ones found.
import numpy as np
from scipy.optimize import minimize
rng=np.random.default_rng(20261127)
def pll(th,x,w,l):
    a,b=th; eta=a+b*x; p=1/(1+np.exp(-eta))
    ll=-(w*np.logaddexp(0,-eta)+l*np.logaddexp(0,eta)).sum()
    h=(w+l)*p*(1-p)
    I=np.array([[h.sum(),(h*x).sum()],[(h*x).sum(),(h*x*x).sum()]])
    d=np.linalg.det(I)
    return ll+0.5*np.log(d) if d>0 else -1e300
cases=[]
trial=0
while len(cases)<12 and trial<20000:
    trial+=1
    k=int(rng.integers(3,8))
    x=np.round(rng.normal(0,1.5,size=k),2)
    if len(set(x))<k: continue
    n=rng.integers(1,4,size=k)
    w=np.array([rng.binomial(m,1/(1+np.exp(-2*xx))) for m,xx in zip(n,x)]).astype(float)
    l=n-w
    found=[]
    for s in [(a,b) for a in (-3,-1,0,1,3) for b in (-4,-1,0,1,3,6,12)]:
        r=minimize(lambda t:-pll(t,x,w,l),s,method='Nelder-Mead',options=dict(xatol=1e-11,fatol=1e-14,maxiter=40000))
        r2=minimize(lambda t:-pll(t,x,w,l),r.x,method='BFGS',options=dict(gtol=1e-10))
        v=-r2.fun
        if np.all(np.isfinite(r2.x)) and abs(r2.x[1])<100:
            found.append((v,r2.x[0],r2.x[1]))
    found.sort(reverse=True)
    distinct=[]
    for v,a,b in found:
        if all(abs(a-a2)+abs(b-b2)>1e-3 for _,a2,b2 in distinct): distinct.append((v,a,b))
    if len(distinct)>1 and distinct[0][0]-distinct[1][0]>1e-4:
        cases.append((x,w,l,distinct))
for x,w,l,d in cases:
    pts=", ".join(f"({a}, {b:.0f}.0, {c:.0f}.0)" for a,b,c in zip(x,w,l))
    print(f"(&[{pts}], {d[0][0]!r}, {d[0][1]!r}, {d[0][2]!r}), // other maxima: " + "; ".join(f"({a:.3f}, {b:.3f}) {v:.6f}" for v,a,b in d[1:]))
