"""On paper: how many term shards a Japanese question's first query fetches, with each CJK
bigram's postings under its first character (the shipped layout) or under both of its
characters (so that neighbouring bigrams of a question can share a shard).

    python3 bench/multilingual/cjk_shards.py [docs folder] [queries.jsonl]

Approximations, for comparing the two layouts only: sections cut at Markdown headings, the
analyzer's folding (NFKC, lower case, katakana as hiragana) and bigrams of CJK runs, a
posting list's deflated size as 4 + 1.8 bytes a section, shards closed at 3 KB (the writer's
SHARD_DEFLATED), English terms left out, and a greedy cover choosing which copy to fetch.
Results: bench/results/2026-12-07-cjk-requests.md.
"""
import os, re, json, unicodedata, collections, sys
here=os.path.dirname(os.path.abspath(__file__))
root=sys.argv[1] if len(sys.argv)>1 else os.path.join(here,'../../../shared/corpora/vue-docs-ja')
queries=sys.argv[2] if len(sys.argv)>2 else os.path.join(here,'../questions/vue-docs-ja/queries.jsonl')
def fold(s):
    s=unicodedata.normalize('NFKC',s).lower()
    return ''.join(chr(ord(c)-0x60) if 'ァ'<=c<='ヶ' else c for c in s)
cjk=re.compile(r'[\u3040-\u309f\u30a0-\u30ff\u4e00-\u9fff\u3400-\u4dbf\u30fc々〆]+')
def bigrams(text):
    out=[]
    for run in cjk.findall(fold(text)):
        out.append([run[i:i+2] for i in range(len(run)-1)] if len(run)>1 else [run])
    return out
df=collections.Counter()
for dp,_,fs in os.walk(root):
    for f in fs:
        if not f.endswith('.md'): continue
        t=open(os.path.join(dp,f),encoding='utf8').read()
        # sections by heading
        for sec in re.split(r'\n#+ ',t):
            terms=set(b for r in bigrams(sec) for b in r)
            df.update(terms)
size=lambda d: 4+1.8*d
LIMIT=3072
def shards(keys):  # keys: sorted list of (key, size) -> dict key->shard
    m={}; cur=0; acc=0
    for k,s in keys:
        if acc>0 and acc+s>LIMIT: cur+=1; acc=0
        m[k]=cur; acc+=s
    return m,cur+1
norm=sorted((b,size(d)) for b,d in df.items())
m1,n1=shards(norm)
# doubled: forward key = b[0]+'\0'+b[1]; reverse key = b[1]+'\1'+b[0]; interleaved by pivot char
dbl=[]
for b,d in df.items():
    if len(b)==2:
        dbl.append((b[0]+'\x00'+b[1],size(d)))
        dbl.append((b[1]+'\x01'+b[0],size(d)))
    else: dbl.append((b,size(d)))
dbl.sort()
m2,n2=shards(dbl)
qs=[json.loads(l) for l in open(queries)]
r1=[];r2=[];nb=[]
for q in qs:
    terms=[b for r in bigrams(q['text']) for b in r]
    terms=[t for t in dict.fromkeys(terms) if t in df]
    nb.append(len(terms))
    s1={m1[t] for t in terms}
    # greedy cover
    cands={}
    for t in terms:
        if len(t)==2: cands[t]={m2[t[0]+'\x00'+t[1]], m2[t[1]+'\x01'+t[0]]}
        else: cands[t]={m2[t]}
    left=set(terms); chosen=set()
    while left:
        cnt=collections.Counter(s for t in left for s in cands[t])
        best=cnt.most_common(1)[0][0]; chosen.add(best)
        left={t for t in left if best not in cands[t]}
    r1.append(len(s1)); r2.append(len(chosen))
import statistics as st
print('shards',n1,n2,'terms',len(df))
for kind in ('question','navigational'):
    idx=[i for i,q in enumerate(qs) if q.get('kind')==kind]
    a=[r1[i] for i in idx]; b=[r2[i] for i in idx]
    print(kind, len(idx), 'normal median',st.median(a),'max',max(a),' doubled median',st.median(b),'max',max(b), 'bigrams median', st.median([nb[i] for i in idx]))
