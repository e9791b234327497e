# Distinct top-k routing patterns of random linear routers vs Eq. 13 and the arrangement bound.
# Usage: gnuplot -e "csv='results/bounds_pattern_counts.csv'; png='results/bounds_pattern_counts.png'" plots/bounds_pattern_counts.gp
# CSV columns: m,d,T,k,routers,distinct_patterns,distinct_masks,log_patterns,sample_limited,d_N,log_eq13_bound,
#              log_arrangement_bound,log_all_patterns
if (!exists("csv")) csv = 'results/bounds_pattern_counts.csv'
if (!exists("png")) png = 'results/bounds_pattern_counts.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000,700 enhanced font ",11"
} else {
  set terminal png size 1000,700
}
set output png
set datafile separator comma
set datafile columnheaders
set title "Routing patterns on m points, T = 8 experts, top-2 (log_{10} scale; Eq. 13 with d_N = d T)"
set grid
set logscale x 2
set xlabel "points m"
set ylabel "log_{10} number of patterns"
set key outside right
set yrange [0:*]
ds = "1 2 4"
l10 = log(10)
plot for [i = 1:3] csv using 1:($2 == word(ds, i) + 0 ? $8 / l10 : 1/0) with linespoints lw 2 pt 7 lc i title sprintf("measured, d = %s", word(ds, i)), \
     for [i = 1:3] csv using 1:($2 == word(ds, i) + 0 ? $12 / l10 : 1/0) with lines dt 2 lc i title sprintf("arrangement bound, d = %s", word(ds, i)), \
     for [i = 1:3] csv using 1:($2 == word(ds, i) + 0 ? $11 / l10 : 1/0) with lines dt 3 lc i title sprintf("Eq. 13, d = %s", word(ds, i)), \
     csv using 1:($2 == 1 ? $13 / l10 : 1/0) with lines lw 2 lc rgb "black" title "all C(T,k)^m tuples", \
     csv using 1:($2 == 1 ? log10($5) : 1/0) with lines lw 1 lc rgb "gray" title "routers drawn (sample limit)"
