# Marchenko-Pastur density vs the pooled eigenvalue histogram of (1/N) X X', one panel per c.
# Usage: gnuplot -e "csv='results/spectra_mp_density.csv'; png='results/spectra_mp_density.png'" plots/spectra_mp_density.gp
# CSV columns: c,M,N,law,x,empirical_density,limit_bin_density,limit_density,ks_distance_mean,trials
if (!exists("csv")) csv = 'results/spectra_mp_density.csv'
if (!exists("png")) png = 'results/spectra_mp_density.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1500,900 enhanced font ",10"
} else {
  set terminal png size 1500,900
}
set output png
set datafile separator comma
set datafile columnheaders
# The distinct values of c, in file order.
cs = system(sprintf("grep -v '^#' '%s' | tail -n +2 | cut -d, -f1 | uniq | tr '\\n' ' '", csv))
n = words(cs)
set multiplot layout 2, (n + 1) / 2 title "Marchenko-Pastur density (line) vs eigenvalue histogram of (1/N) X X' (bars)"
set style fill solid 0.35 noborder
set grid
do for [i = 1:n] {
  c = word(cs, i) + 0.0
  set title sprintf("c = M/N = %g", c)
  set xlabel "eigenvalue x"
  set ylabel "density"
  plot csv using 5:(abs($1 - c) < 1e-12 ? $6 : 1/0) with boxes lc rgb "#1f77b4" title "histogram", \
       csv using 5:(abs($1 - c) < 1e-12 ? $8 : 1/0) with lines lw 2 lc rgb "#d62728" title "MP density"
}
unset multiplot
