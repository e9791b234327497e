# Largest eigenvalue of white Wishart matrices, centred and scaled, vs the Tracy-Widom densities.
# Usage: gnuplot -e "csv='results/spectra_tw_wishart.csv'; png='results/spectra_tw_wishart.png'" plots/spectra_tw_wishart.gp
# CSV columns: n,p,beta,s,empirical_density,limit_bin_density,limit_density,scaled_mean,scaled_variance,
#              ks_distance,ks_p_value,trials
if (!exists("csv")) csv = 'results/spectra_tw_wishart.csv'
if (!exists("png")) png = 'results/spectra_tw_wishart.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1400,600 enhanced font ",11"
} else {
  set terminal png size 1400,600
}
set output png
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title "Largest eigenvalue of white Wishart matrices vs Tracy-Widom"
set grid
set style fill solid 0.35 noborder
set xlabel "(l_1 - mu_{np}) / sigma_{np}"
set ylabel "density"
do for [b = 1:2] {
  ks = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR > 1 && $3 == %d {print $10, $11, $1, $2; exit}'", csv, b))
  set title sprintf("beta = %d (%s), n = %s, p = %s: KS distance %.4f, p-value %.3f", b, b == 1 ? "real" : "complex", \
                    word(ks, 3), word(ks, 4), word(ks, 1) + 0, word(ks, 2) + 0)
  plot csv using 4:($3 == b ? $5 : 1/0) with boxes lc rgb "#1f77b4" title "histogram", \
       csv using 4:($3 == b ? $7 : 1/0) with lines lw 2 lc rgb "#d62728" title sprintf("TW%d density", b)
}
unset multiplot
