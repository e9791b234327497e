# Optimal sparsity k* vs number of tasks N for several m: Definition 5 as printed vs Theorem 1's k-term.
# Usage: gnuplot -e "csv='results/sparsity_kstar_regimes.csv'; png='results/sparsity_kstar_regimes.png'" plots/sparsity_kstar_regimes.gp
# CSV columns: form,N,m,d_N,T,a,b,delta,k_star,error_at_k_star,k_star_real,error_at_k_star_real,real_at_boundary,
#              approximation_at_k_star,estimation_at_k_star
if (!exists("csv")) csv = 'results/sparsity_kstar_regimes.csv'
if (!exists("png")) png = 'results/sparsity_kstar_regimes.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1400,600 enhanced font ",11"
} else {
  set terminal png size 1400,600
}
set output png
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title "Optimal number of active experts k* (T = 64, d_N = 2, a = 0.01, b = 1)"
set grid
set key top left
set xlabel "number of tasks N"
set ylabel "k*"
set yrange [0:68]
ms = "1000 10000 100000 1000000"
labels = "10^3 10^4 10^5 10^6"
set title "k-term of Theorem 1 (Eq. 5): interior optimum; k* grows with N and m"
plot for [i = 1:4] csv using 2:((strcol(1) eq "theorem1" && $3 == word(ms, i) + 0) ? $9 : 1/0) with linespoints pt 7 ps 0.6 \
       title sprintf("m = %s (integer k*)", word(labels, i)), \
     for [i = 1:4] csv using 2:((strcol(1) eq "theorem1" && $3 == word(ms, i) + 0) ? $11 : 1/0) with lines dt 2 lc i notitle
set key bottom right
set title "Definition 5 as printed: E_{est}(T) = 0, so k* = T for every N and m"
plot for [i = 1:4] csv using 2:((strcol(1) eq "definition5" && $3 == word(ms, i) + 0) ? $9 : 1/0) with linespoints pt 7 ps 0.6 \
       title sprintf("m = %s", word(labels, i))
unset multiplot
