# Region masses C(m,k) mu(U_S) of Gaussian top-k routing, one panel per d, vs uniform masses (all at 1).
# Usage: gnuplot -e "csv='results/routing_mass_histogram.csv'; png='results/routing_mass_histogram.png'" plots/routing_mass_histogram.gp
# CSV columns: m,k,d,law,x,empirical_density,lognormal_reference_density,c2,second_moment_mean,balanced_fraction_mean,points,trials
if (!exists("csv")) csv = 'results/routing_mass_histogram.csv'
if (!exists("png")) png = 'results/routing_mass_histogram.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1500,520 enhanced font ",11"
} else {
  set terminal png size 1500,520
}
set output png
set datafile separator comma
set datafile columnheaders
stats csv using 3 name "D" nooutput
d1 = D_min; d3 = D_max
stats csv using ($3 > d1 && $3 < d3 ? $3 : 1/0) name "M" nooutput
d2 = M_min
stats csv using 5 name "X" nooutput
w = 2 * X_min
stats csv using 1 name "MM" nooutput
stats csv using 2 name "KK" nooutput
set multiplot layout 1, 3 title sprintf("Region masses of Gaussian top-%d-of-%d routing: C mu(U_S) over all C(m,k) regions and the routing draws", KK_min, MM_min)
set grid
set xrange [0:3]
set xlabel "C(m,k) mu(U_S)   (uniform masses: all at 1)"
set ylabel "density"
set key top right box opaque font ",9"
set arrow 1 from 1, graph 0 to 1, graph 1 nohead lw 2 lc rgb "#2ca02c"
set arrow 2 from 0.5, graph 0 to 0.5, graph 1 nohead dt 2 lw 2 lc rgb "#ff7f0e"
do for [dd in sprintf("%d %d %d", d1, d2, d3)] {
  set autoscale y
  stats csv using ($3 == dd ? $9 : 1/0) name "S" nooutput
  stats csv using ($3 == dd ? $10 : 1/0) name "B" nooutput
  stats csv using ($3 == dd && $5 < w ? $6 * w : 1/0) name "Z" nooutput
  set title sprintf("d = %s:  C^2 E mu^2 = %.2f,  balanced fraction %.2f\n%.1f%% of the regions have C mu < %.2f (first bin)", \
                    dd, S_mean, B_mean, 100 * Z_max, w)
  set yrange [0:2.9]
  plot csv using ($3 == dd ? $5 : 1/0):6 with boxes fs solid 0.35 lc rgb "#1f77b4" title "Monte-Carlo histogram", \
       csv using ($3 == dd ? $5 : 1/0):7 with lines lw 2 lc rgb "#d62728" title "lognormal, mean 1, variance c2/d + C/n", \
       NaN with lines lw 2 lc rgb "#2ca02c" title "uniform (1)", \
       NaN with lines dt 2 lw 2 lc rgb "#ff7f0e" title "Lemma 3.2 threshold 1/2"
}
unset multiplot
