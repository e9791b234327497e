# BBP transition: top sample eigenvalue and eigenvector overlap vs the spike ell, Monte-Carlo vs limits.
# Usage: gnuplot -e "csv='results/spectra_spike_transition.csv'; png='results/spectra_spike_transition.png'" plots/spectra_spike_transition.gp
# CSV columns: c,M,N,ell,law,top_mean,top_std_error,n_times_variance,limit,bulk_edge,variance_limit,
#              overlap_mean,overlap_std_error,overlap_limit,trials
if (!exists("csv")) csv = 'results/spectra_spike_transition.csv'
if (!exists("png")) png = 'results/spectra_spike_transition.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1400,600 enhanced font ",11"
} else {
  set terminal png size 1400,600
}
set output png
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title "BBP transition (c = M/N = 1/2, threshold ell = 1 + sqrt c)"
set grid
set key top left box opaque
set xlabel "population spike ell"
set ylabel "top sample eigenvalue"
plot csv using 4:($2 == 100 ? $6 : 1/0):7 with yerrorbars pt 7 lc rgb "#1f77b4" title "M = 100: mean ± s.e.", \
     csv using 4:($2 == 400 ? $6 : 1/0):7 with yerrorbars pt 5 lc rgb "#2ca02c" title "M = 400: mean ± s.e.", \
     csv using 4:($2 == 400 ? $9 : 1/0) with lines lw 2 lc rgb "#d62728" title "limit (BBP / Baik-Silverstein)"
set ylabel "squared overlap <v, e_1>^2"
set yrange [-0.05:1.05]
plot csv using 4:($2 == 100 ? $12 : 1/0):13 with yerrorbars pt 7 lc rgb "#1f77b4" title "M = 100: mean ± s.e.", \
     csv using 4:($2 == 400 ? $12 : 1/0):13 with yerrorbars pt 5 lc rgb "#2ca02c" title "M = 400: mean ± s.e.", \
     csv using 4:($2 == 400 ? $14 : 1/0) with lines lw 2 lc rgb "#d62728" title "limit (Paul 2007)"
unset multiplot
